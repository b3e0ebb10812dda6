/**
 * The pages of the document being organized, as the reader arranges them: a working copy that only
 * ever lists pages of source documents (the one shown, and those merged in), so the documents
 * themselves are never touched. Every arrangement is kept whole for undo and redo (a list of
 * references: 400 pages and 200 steps are 80,000 pointers), and the copy becomes a transformation's
 * parts, consecutive pages of a source as one range.
 */
import type { PageDimensions, TransformationPart } from "../client/ViewerClient.ts"

/** A document whose pages the copy may take. */
export interface Source {
  readonly uuid: string
  readonly title: string
  readonly pages: ReadonlyArray<PageDimensions>
}

/** A page of the copy: page `page` (0-based) of `sources[source]`, under a key that follows it through moves. */
export interface CopyPage {
  readonly key: number
  readonly source: number
  readonly page: number
}

/** Most arrangements kept for undo: older ones are forgotten. */
const UNDO_DEPTH = 200

export class WorkingCopy {
  private readonly sourceList: Array<Source>
  private list: ReadonlyArray<CopyPage>
  private undoStack: Array<ReadonlyArray<CopyPage>> = []
  private redoStack: Array<ReadonlyArray<CopyPage>> = []
  /** Keys of the original pages are their page indexes; pages added later count on from there. */
  private nextKey: number

  constructor(original: Source) {
    this.sourceList = [original]
    this.list = this.originalPages()
    this.nextKey = original.pages.length
  }

  get pages(): ReadonlyArray<CopyPage> {
    return this.list
  }

  get sources(): ReadonlyArray<Source> {
    return this.sourceList
  }

  get canUndo() {
    return this.undoStack.length > 0
  }

  get canRedo() {
    return this.redoStack.length > 0
  }

  /** The copy is no longer the original document, page for page. */
  get changed() {
    const pages = this.list
    return pages.length !== this.sourceList[0]!.pages.length ||
      pages.some((page, index) => page.source !== 0 || page.page !== index)
  }

  /** Where the page of `key` is in the copy, -1 when it is not. */
  indexOf(key: number) {
    return this.list.findIndex((page) => page.key === key)
  }

  /** The page's size as the layout gives it. */
  dimensions(page: CopyPage): PageDimensions {
    return this.sourceList[page.source]!.pages[page.page]!
  }

  /**
   * Moves the pages of `keys` (kept in their order in the copy) so they sit together where position
   * `before` is (0 to the number of pages, the gaps between pages). Answers whether anything moved.
   */
  moveTo(keys: ReadonlySet<number>, before: number): boolean {
    return this.place(keys, this.list.slice(0, before).filter((page) => !keys.has(page.key)).length)
  }

  /**
   * Moves the pages of `keys` by `steps` places among the others (negative: towards the start), as
   * one block starting where the first of them is; at an end they stay there.
   */
  shift(keys: ReadonlySet<number>, steps: number): boolean {
    // The first of them has as many other pages before it as its index.
    const first = this.list.findIndex((page) => keys.has(page.key))
    if (first < 0) return false
    return this.place(keys, first + steps)
  }

  remove(keys: ReadonlySet<number>): boolean {
    return this.arrange(this.list.filter((page) => !keys.has(page.key)))
  }

  /** Puts every page of `source` at position `at`; answers the new pages' keys. */
  insert(source: Source, at: number): ReadonlyArray<number> {
    const index = this.sourceList.push(source) - 1
    const added = source.pages.map((_, page) => ({ key: this.nextKey++, source: index, page }))
    this.arrange([...this.list.slice(0, at), ...added, ...this.list.slice(at)])
    return added.map((page) => page.key)
  }

  /** Back to the original document's pages in order (undone like any change). */
  reset(): boolean {
    return this.arrange(this.originalPages())
  }

  undo(): boolean {
    return this.travel(this.undoStack, this.redoStack)
  }

  redo(): boolean {
    return this.travel(this.redoStack, this.undoStack)
  }

  /**
   * The copy as a transformation's parts: each run of pages of one document is a part, and each run
   * of consecutive pages in it a range, so an untouched 400-page document is one part of one range.
   */
  parts(keys?: ReadonlySet<number>): Array<TransformationPart> {
    const parts: Array<{ uuid: string; pages: Array<{ from: number; to: number }> }> = []
    for (const page of this.list) {
      if (keys !== undefined && !keys.has(page.key)) continue
      const uuid = this.sourceList[page.source]!.uuid
      const part = parts[parts.length - 1]
      if (part?.uuid !== uuid) {
        parts.push({ uuid, pages: [{ from: page.page, to: page.page }] })
        continue
      }
      const range = part.pages[part.pages.length - 1]!
      if (page.page === range.to + 1) range.to = page.page
      else part.pages.push({ from: page.page, to: page.page })
    }
    return parts
  }

  /** The pages of `keys`, in their order, put together after `at` of the other pages (at an end past it). */
  private place(keys: ReadonlySet<number>, at: number): boolean {
    const rest = this.list.filter((page) => !keys.has(page.key))
    at = Math.max(0, Math.min(rest.length, at))
    return this.arrange([...rest.slice(0, at), ...this.list.filter((page) => keys.has(page.key)), ...rest.slice(at)])
  }

  /** Undo and redo: the arrangement on top of `from` comes back, the one shown goes on `to`. */
  private travel(from: Array<ReadonlyArray<CopyPage>>, to: Array<ReadonlyArray<CopyPage>>): boolean {
    const pages = from.pop()
    if (pages === undefined) return false
    to.push(this.list)
    this.list = pages
    return true
  }

  private originalPages(): ReadonlyArray<CopyPage> {
    return this.sourceList[0]!.pages.map((_, page) => ({ key: page, source: 0, page }))
  }

  /** Makes `pages` the copy, keeping the one before for undo; an arrangement that changes nothing is no step. */
  private arrange(pages: ReadonlyArray<CopyPage>): boolean {
    const same = pages.length === this.list.length && pages.every((page, index) => page === this.list[index])
    if (same) return false
    this.undoStack.push(this.list)
    if (this.undoStack.length > UNDO_DEPTH) this.undoStack.shift()
    this.redoStack = []
    this.list = pages
    return true
  }
}
