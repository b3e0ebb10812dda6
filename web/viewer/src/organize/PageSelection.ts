/**
 * The pages selected in the organizer and the one the keyboard is on, by their keys in the working
 * copy, so a selection follows its pages when they move. Selecting works as in a file manager: a
 * click selects one page, Ctrl (⌘) adds or takes one, Shift selects from the anchor (the page last
 * clicked alone or toggled) to the page clicked, Ctrl+Shift adds that range.
 */
export class PageSelection {
  private readonly keys = new Set<number>()
  /** Where a Shift range starts. */
  private anchor: number | null = null
  /** The page holding the grid's one tab stop. */
  focus: number | null = null

  get selected(): ReadonlySet<number> {
    return this.keys
  }

  get size() {
    return this.keys.size
  }

  has(key: number) {
    return this.keys.has(key)
  }

  only(key: number) {
    this.keys.clear()
    this.keys.add(key)
    this.anchor = this.focus = key
  }

  toggle(key: number) {
    if (!this.keys.delete(key)) this.keys.add(key)
    this.anchor = this.focus = key
  }

  /** The pages from the anchor to `key` in the copy's `order`; with `add`, beside those already selected. */
  extendTo(order: ReadonlyArray<number>, key: number, add: boolean) {
    const from = order.indexOf(this.anchor ?? key)
    const to = order.indexOf(key)
    if (!add) this.keys.clear()
    const [low, high] = from < 0 ? [to, to] : [Math.min(from, to), Math.max(from, to)]
    for (let index = low; index <= high; index++) this.keys.add(order[index]!)
    this.focus = key
  }

  /** Exactly these pages (the pages a merge added, say), the first as anchor and focus. */
  set(keys: ReadonlyArray<number>) {
    this.keys.clear()
    for (const key of keys) this.keys.add(key)
    this.anchor = this.focus = keys[0] ?? this.focus
  }

  all(order: ReadonlyArray<number>) {
    for (const key of order) this.keys.add(key)
  }

  clear() {
    this.keys.clear()
  }

  /** Forgets pages no longer in the copy (deleted, or undone away); the focus goes to a page still there. */
  keepOnly(order: ReadonlyArray<number>, focusFallback: number | null) {
    const present = new Set(order)
    for (const key of this.keys) if (!present.has(key)) this.keys.delete(key)
    if (this.anchor !== null && !present.has(this.anchor)) this.anchor = null
    if (this.focus === null || !present.has(this.focus)) this.focus = focusFallback
  }
}
