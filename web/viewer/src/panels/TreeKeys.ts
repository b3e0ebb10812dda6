/**
 * The keyboard of a tree (WAI-ARIA tree view pattern), shared by the bookmarks and parts panels.
 * A tree is drawn flat: its visible rows, each with its level, so moving by arrow is moving in an
 * array. Pure: the panels apply the answer (focus a row, expand, collapse, activate).
 */

export interface TreeRow<T> {
  readonly node: T
  /** The path of child positions from the top ("0.2.1"): stable while the tree is, and its prefixes are the ancestors. */
  readonly key: string
  /** 1-based, as aria-level counts. */
  readonly level: number
  /** The row of the parent, -1 for a top-level node. */
  readonly parent: number
  readonly expandable: boolean
  readonly expanded: boolean
  /** aria-setsize and aria-posinset: a flat tree must say where each row sits among its siblings. */
  readonly setSize: number
  readonly posInSet: number
}

/** The rows a reader sees: every top-level node, and the children of expanded ones. */
export const visibleRows = <T>(
  roots: ReadonlyArray<T>,
  childrenOf: (node: T) => ReadonlyArray<T>,
  isExpanded: (key: string, level: number) => boolean
): Array<TreeRow<T>> => {
  const rows: Array<TreeRow<T>> = []
  const walk = (nodes: ReadonlyArray<T>, prefix: string, level: number, parent: number) => {
    nodes.forEach((node, position) => {
      const key = prefix === "" ? String(position) : `${prefix}.${position}`
      const children = childrenOf(node)
      const expandable = children.length > 0
      const expanded = expandable && isExpanded(key, level)
      const row = rows.length
      rows.push({ node, key, level, parent, expandable, expanded, setSize: nodes.length, posInSet: position + 1 })
      if (expanded) walk(children, key, level + 1, row)
    })
  }
  walk(roots, "", 1, -1)
  return rows
}

/**
 * The row holding the focus: the one with `key`, else its nearest visible ancestor (the row was
 * hidden by collapsing a parent), else the first.
 */
export const focusedRow = (rows: ReadonlyArray<TreeRow<unknown>>, key: string | null): number => {
  for (let path = key; path !== null && path !== "";) {
    const found = rows.findIndex((row) => row.key === path)
    if (found >= 0) return found
    const dot: number = path.lastIndexOf(".")
    path = dot < 0 ? null : path.slice(0, dot)
  }
  return 0
}

export type TreeMove =
  | { readonly kind: "focus"; readonly row: number }
  | { readonly kind: "expand"; readonly key: string }
  | { readonly kind: "collapse"; readonly key: string }
  | { readonly kind: "activate"; readonly row: number }

/** What `key` (a KeyboardEvent's key) does on the focused row; null when the tree ignores it. */
export const treeMove = (rows: ReadonlyArray<TreeRow<unknown>>, focused: number, key: string): TreeMove | null => {
  const row = rows[focused]
  if (row === undefined) return null
  switch (key) {
    case "ArrowDown":
      return focused + 1 < rows.length ? { kind: "focus", row: focused + 1 } : null
    case "ArrowUp":
      return focused > 0 ? { kind: "focus", row: focused - 1 } : null
    case "Home":
      return { kind: "focus", row: 0 }
    case "End":
      return { kind: "focus", row: rows.length - 1 }
    case "ArrowRight":
      // Open a closed node; on an open one, step into its first child.
      if (!row.expandable) return null
      return row.expanded ? { kind: "focus", row: focused + 1 } : { kind: "expand", key: row.key }
    case "ArrowLeft":
      // Close an open node; from a closed one or a leaf, go up to the parent.
      if (row.expanded) return { kind: "collapse", key: row.key }
      return row.parent >= 0 ? { kind: "focus", row: row.parent } : null
    case "Enter":
    case " ":
      return { kind: "activate", row: focused }
    default:
      return null
  }
}
