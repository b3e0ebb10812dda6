/**
 * Fetches page images a few at a time, most urgent first: the pages in view before those just
 * around them, and those before thumbnails. A request for a page scrolled past is cancelled (queued
 * ones never start; running ones are aborted), so a fast scroll does not leave the broker drawing
 * pages nobody will look at.
 */
import type { ViewerClient } from "../client/ViewerClient.ts"

/** Lower runs first. */
export const Priority = {
  visible: 0,
  nearby: 1,
  tile: 0,
  thumbnail: 2
} as const

interface Job {
  readonly url: string
  readonly priority: number
  readonly order: number
  readonly controller: AbortController
  readonly resolve: (objectUrl: string) => void
  readonly reject: (error: unknown) => void
}

export interface ImageRequest {
  readonly promise: Promise<string>
  /** Drops the request: the promise then rejects with an AbortError. */
  readonly cancel: () => void
}

export class ImageLoader {
  private readonly queue: Array<Job> = []
  private running = 0
  private order = 0

  /**
   * `concurrency`: images in flight at once. Browsers open six connections per host over HTTP/1.1;
   * leaving two free keeps text and search requests from queueing behind images.
   */
  constructor(private readonly client: ViewerClient, private readonly concurrency = 4) {}

  load(url: string, priority: number): ImageRequest {
    const controller = new AbortController()
    const promise = new Promise<string>((resolve, reject) => {
      const job: Job = { url, priority, order: this.order++, controller, resolve, reject }
      controller.signal.addEventListener("abort", () => {
        const queued = this.queue.indexOf(job)
        if (queued >= 0) this.queue.splice(queued, 1)
        reject(new DOMException("The page left the view", "AbortError"))
      })
      this.queue.push(job)
      this.pump()
    })
    // A cancelled request is expected, never an unhandled rejection.
    promise.catch(() => undefined)
    return { promise, cancel: () => controller.abort() }
  }

  private pump() {
    while (this.running < this.concurrency && this.queue.length > 0) {
      let best = 0
      for (let index = 1; index < this.queue.length; index++) {
        const job = this.queue[index]!
        const current = this.queue[best]!
        if (job.priority < current.priority || (job.priority === current.priority && job.order < current.order)) {
          best = index
        }
      }
      const job = this.queue.splice(best, 1)[0]!
      this.running++
      this.client.image(job.url, job.controller.signal).then(job.resolve, job.reject).finally(() => {
        this.running--
        this.pump()
      })
    }
  }
}
