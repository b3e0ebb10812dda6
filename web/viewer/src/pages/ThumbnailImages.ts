/**
 * Thumbnail images (the thumbnails panel's, the organizer's), by page key: asked through the viewer's ImageLoader at
 * thumbnail priority (behind the pages' own images), kept while near the view and let go when
 * scrolled away, so a 400-page document holds a screenful of images, not 400.
 */
import { type ImageLoader, type ImageRequest, Priority } from "./ImageLoader.ts"

interface Held {
  readonly url: string
  request: ImageRequest | null
  objectUrl: string | null
  failed: boolean
}

export class ThumbnailImages {
  private readonly held = new Map<number, Held>()

  /** `arrived`: an image came (or failed): the grid draws it. */
  constructor(private readonly loader: ImageLoader, private readonly arrived: () => void) {}

  objectUrl(key: number): string | null {
    return this.held.get(key)?.objectUrl ?? null
  }

  failed(key: number): boolean {
    return this.held.get(key)?.failed ?? false
  }

  /** Asks for the image at `url` for the page of `key`, unless it is here or on its way. */
  want(key: number, url: string) {
    const before = this.held.get(key)
    if (before?.url === url) return
    if (before !== undefined) this.release(key, before)
    const request = this.loader.load(url, Priority.thumbnail)
    const held: Held = { url, request, objectUrl: null, failed: false }
    this.held.set(key, held)
    request.promise.then((objectUrl) => {
      if (this.held.get(key) !== held) return URL.revokeObjectURL(objectUrl)
      held.request = null
      held.objectUrl = objectUrl
      this.arrived()
    }, (error: Error) => {
      if (this.held.get(key) !== held || error.name === "AbortError") return
      // Said on the thumbnail; asked again once scrolled away and back.
      held.request = null
      held.failed = true
      this.arrived()
    })
  }

  /** Lets go of every image whose key does not pass `keep` (all, without it). */
  dropExcept(keep: (key: number) => boolean = () => false) {
    for (const [key, held] of this.held) if (!keep(key)) this.release(key, held)
  }

  private release(key: number, held: Held) {
    held.request?.cancel()
    if (held.objectUrl !== null) URL.revokeObjectURL(held.objectUrl)
    this.held.delete(key)
  }
}
