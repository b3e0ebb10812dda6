/**
 * The documents recently shown in this browser, kept in localStorage, so that the comparison can
 * offer them as the second document: the viewer writes one each time it shows a document. IDs may
 * expire (VIEWER_DOCUMENT_ID_TTL); one that did says so when it is opened.
 */

export interface RecentDocument {
  readonly uuid: string
  readonly title: string | null
  /** When it was last shown (ms since the epoch). */
  readonly at: number
}

const KEY = "docstack-viewer-recent"
/** Enough to find yesterday's version; few enough to read at a glance. */
export const MAX_RECENT = 12

/** `list` with `document` first, once, cut to MAX_RECENT. */
export const withRecent = (list: ReadonlyArray<RecentDocument>, document: RecentDocument): Array<RecentDocument> =>
  [document, ...list.filter((entry) => entry.uuid !== document.uuid)].slice(0, MAX_RECENT)

/** The list as stored; nothing when storage is off (private windows, sandboxed frames) or holds something else. */
export const recentDocuments = (): ReadonlyArray<RecentDocument> => {
  try {
    const stored: unknown = JSON.parse(globalThis.localStorage?.getItem(KEY) ?? "[]")
    return Array.isArray(stored)
      ? stored.filter((entry): entry is RecentDocument =>
        typeof entry?.uuid === "string" && typeof entry.at === "number" &&
        (entry.title === null || typeof entry.title === "string")
      )
      : []
  } catch {
    return []
  }
}

export const rememberDocument = (uuid: string, title: string | null) => {
  try {
    globalThis.localStorage?.setItem(
      KEY,
      JSON.stringify(withRecent(recentDocuments(), { uuid, title, at: Date.now() }))
    )
  } catch {
    // Storage full or refused: the list is a convenience, reading goes on without it.
  }
}

/**
 * The document ID in what a reader pasted: a bare ID, or a viewer address holding `uuid=` (the full
 * page's link). Null when it is neither.
 */
export const documentIdOf = (pasted: string): string | null => {
  const text = pasted.trim()
  if (text === "") return null
  if (/[?&]uuid=/.test(text)) {
    const query = text.slice(text.indexOf("?") + 1)
    return new URLSearchParams(query).get("uuid")?.trim() || null
  }
  return /^[^\s?&#/]+(\/[^\s?&#/]+)*$/.test(text) ? text : null
}
