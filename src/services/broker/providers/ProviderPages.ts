/**
 * The position transformation of provider annotations (docs/providers.md): a document the broker
 * shows (a provider's file, a part of it, a folder of files) counts its pages in one sequence, the
 * pages of its documents in layout order; a provider keeps each annotation with the file it serves,
 * its page counted over that file's own sequence. A page of the one maps to (file, page) of the
 * other and back. Each page keeps its own size and rotation in both sequences and positions are
 * relative to the page, so `position` passes unchanged: only `page` moves.
 */
import type { ProviderParameters } from "../../../schemas/provider/ProviderContract.ts"

/** A file of a provider, as the broker calls it. */
export interface ProviderFileRef {
  /** Its index in its provider folder (`<folder id>/<index>`); undefined for a file opened on its own. */
  readonly index: number | undefined
  readonly parameters: ProviderParameters
}

/** A run of pages shown in the document that stand, in the same order, in one provider file. */
export interface PageRun {
  readonly file: ProviderFileRef
  /** The run's first page in the document shown. */
  readonly shownFirst: number
  /** The same page in the provider file. */
  readonly fileFirst: number
  readonly count: number
}

/** How a document shown maps onto its provider files. */
export interface PageMap {
  readonly runs: ReadonlyArray<PageRun>
  readonly pageCount: number
}

/** The provider file and its page where a page shown stands; undefined past the document's pages. */
export const toFilePage = (map: PageMap, page: number) => {
  const run = map.runs.find((r) => page >= r.shownFirst && page < r.shownFirst + r.count)
  return run && { file: run.file, page: run.fileFirst + (page - run.shownFirst) }
}

/** The page shown where a provider file's page stands; undefined when the document does not show it. */
export const toShownPage = (map: PageMap, file: ProviderFileRef, page: number) => {
  const run = map.runs.find((r) => r.file.index === file.index && page >= r.fileFirst && page < r.fileFirst + r.count)
  return run && run.shownFirst + (page - run.fileFirst)
}

/** The provider files a document shows pages of, each once, in layout order. */
export const filesOf = (map: PageMap): ReadonlyArray<ProviderFileRef> =>
  map.runs.reduce<Array<ProviderFileRef>>(
    (files, run) => (files.some((f) => f.index === run.file.index) ? files : [...files, run.file]),
    []
  )
