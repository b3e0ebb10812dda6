/**
 * Find in the document: the broker is asked a few pages at a time, starting at the page the reader
 * is on and wrapping round, so the first hits show at once and the count grows as it searches. A new
 * search cancels the one running.
 */
import type { SearchHit, SearchOptions, ViewerClient } from "../client/ViewerClient.ts"
import type { Highlight } from "../pages/PageView.ts"

/** Pages per call: small enough for the first hits to come quickly, large enough to keep calls few. */
const CHUNK_PAGES = 25
const FIRST_CHUNK_PAGES = 3

export interface FindState {
  readonly query: string
  readonly hits: ReadonlyArray<SearchHit>
  /** Index in `hits` of the selected hit, -1 before any. */
  readonly current: number
  readonly done: boolean
  readonly error: string | null
}

export const noFind: FindState = { query: "", hits: [], current: -1, done: true, error: null }

const NO_HIGHLIGHTS: ReadonlyArray<Highlight> = []

/** The hits on page `index` as highlights, the selected one marked. */
export const highlightsOn = (state: FindState, index: number): ReadonlyArray<Highlight> => {
  if (state.hits.length === 0) return NO_HIGHLIGHTS
  const found: Array<Highlight> = []
  state.hits.forEach((hit, position) => {
    if (hit.pageNumber === index) found.push({ rects: hit.rects, current: position === state.current })
  })
  return found.length === 0 ? NO_HIGHLIGHTS : found
}

export class FindController {
  private controller: AbortController | null = null
  state: FindState = noFind

  constructor(
    private readonly client: ViewerClient,
    private readonly uuid: string,
    private readonly pageCount: number,
    /** Called on every change: new hits, a new current hit, the end or a failure. */
    private readonly onChange: (state: FindState, moved: boolean) => void
  ) {}

  /** Searches `query` from page `fromIndex` on, wrapping round. */
  async find(query: string, options: SearchOptions, fromIndex: number) {
    this.cancel()
    if (query === "") return this.set(noFind, false)
    const controller = new AbortController()
    this.controller = controller
    this.set({ query, hits: [], current: -1, done: false, error: null }, false)
    const start = Math.min(Math.max(0, fromIndex), this.pageCount - 1)
    const chunks: Array<[number, number]> = []
    // The first call covers only the pages in view, so their hits come before the broker has read more.
    for (let from = start; from < this.pageCount; from += from === start ? FIRST_CHUNK_PAGES : CHUNK_PAGES) {
      chunks.push([from, Math.min(this.pageCount - 1, from + (from === start ? FIRST_CHUNK_PAGES : CHUNK_PAGES) - 1)])
    }
    for (let from = 0; from < start; from += CHUNK_PAGES) {
      chunks.push([from, Math.min(start - 1, from + CHUNK_PAGES - 1)])
    }
    try {
      for (const [from, to] of chunks) {
        const chunk = await this.client.search(this.uuid, query, from, to, options, controller.signal)
        if (controller.signal.aborted) return
        if (chunk.hits.length === 0) continue
        const hits = [...this.state.hits, ...chunk.hits].sort((a, b) => a.pageNumber - b.pageNumber)
        const selected = this.state.current >= 0 ? this.state.hits[this.state.current]! : chunk.hits[0]!
        this.set({ ...this.state, hits, current: hits.indexOf(selected) }, this.state.current < 0)
      }
      this.set({ ...this.state, done: true }, false)
    } catch (error) {
      if (controller.signal.aborted) return
      this.set({ ...this.state, done: true, error: (error as Error).message }, false)
    }
  }

  /** Selects the next (`+1`) or previous (`-1`) hit, wrapping round. */
  move(direction: 1 | -1) {
    const count = this.state.hits.length
    if (count === 0) return
    const current = ((this.state.current < 0 ? (direction > 0 ? -1 : 0) : this.state.current) + direction + count) %
      count
    this.set({ ...this.state, current }, true)
  }

  cancel() {
    this.controller?.abort()
    this.controller = null
  }

  close() {
    this.cancel()
    this.set(noFind, false)
  }

  private set(state: FindState, moved: boolean) {
    this.state = state
    this.onChange(state, moved)
  }
}
