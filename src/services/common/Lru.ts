/**
 * A least-recently-used cache bounded by weight: each entry weighs what `weigh` says (bytes, for
 * the caches of page images, open documents and page text; 1 by default, a count), and the oldest
 * entries go until the total is within `capacity`. An entry heavier than the whole capacity is
 * not kept (it is evicted at once, the others stay). A Map keeps insertion order, so re-inserting on use moves an entry to the back.
 */
export class Lru<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly weight: number }>()
  private total = 0

  constructor(
    private readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => {},
    private readonly weigh: (value: V) => number = () => 1
  ) {}

  /** The sum of the entries' weights. */
  get weight() {
    return this.total
  }

  get size() {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, entry)
    }
    return entry?.value
  }

  set(key: string, value: V) {
    this.remove(key, false)
    const weight = Math.max(0, this.weigh(value))
    if (weight > this.capacity) {
      // Given up at once: keeping it would push out everything else.
      this.onEvict(value)
      return
    }
    this.entries.set(key, { value, weight })
    this.total += weight
    while (this.total > this.capacity && this.entries.size > 0) {
      const oldest = this.entries.keys().next().value as string
      this.remove(oldest, true)
    }
  }

  /** Takes an entry out without evicting it (its owner still holds it). */
  delete(key: string) {
    this.remove(key, false)
  }

  private remove(key: string, evict: boolean) {
    const entry = this.entries.get(key)
    if (entry === undefined) return
    this.entries.delete(key)
    this.total -= entry.weight
    if (evict) this.onEvict(entry.value)
  }
}
