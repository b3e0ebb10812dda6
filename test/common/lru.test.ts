import { describe, expect, it } from "vitest"
import { Lru } from "../../src/services/common/Lru.ts"

const bytes = (n: number) => new Uint8Array(n)

describe("Lru bounded by weight", () => {
  it("keeps the total weight within its capacity, evicting the least recently used", () => {
    const evicted: Array<number> = []
    const cache = new Lru<Uint8Array>(1000, (value) => evicted.push(value.byteLength), (value) => value.byteLength)
    cache.set("a", bytes(400))
    cache.set("b", bytes(400))
    cache.get("a") // a is now the most recent
    cache.set("c", bytes(400))
    expect(cache.get("b")).toBeUndefined()
    expect(cache.get("a")?.byteLength).toBe(400)
    expect(cache.get("c")?.byteLength).toBe(400)
    expect(cache.weight).toBe(800)
    expect(evicted).toEqual([400])
  })

  it("does not keep an entry heavier than the whole capacity, and forgets nothing else for it", () => {
    const evicted: Array<number> = []
    const cache = new Lru<Uint8Array>(1000, (value) => evicted.push(value.byteLength), (value) => value.byteLength)
    cache.set("small", bytes(10))
    cache.set("huge", bytes(5000))
    expect(cache.get("huge")).toBeUndefined()
    expect(cache.get("small")?.byteLength).toBe(10)
    expect(cache.weight).toBe(10)
    expect(evicted).toEqual([5000])
  })

  it("replacing an entry counts only its new weight; delete does not evict", () => {
    const evicted: Array<string> = []
    const cache = new Lru<string>(10, (value) => evicted.push(value), (value) => value.length)
    cache.set("k", "aaaa")
    cache.set("k", "bb")
    expect(cache.weight).toBe(2)
    cache.delete("k")
    expect(cache.weight).toBe(0)
    expect(evicted).toEqual([])
  })

  it("a weight capped at the capacity keeps the newest entry alone, pushing the others out (pdf.js documents)", () => {
    const evicted: Array<number> = []
    const cache = new Lru<number>(1000, (value) => evicted.push(value), (value) => Math.min(value, 1000))
    cache.set("small", 400)
    cache.set("huge", 5000)
    expect(cache.get("huge")).toBe(5000)
    expect(cache.get("small")).toBeUndefined()
    expect(evicted).toEqual([400])
  })

  it("counts entries when no weight is given", () => {
    const cache = new Lru<number>(2)
    cache.set("a", 1)
    cache.set("b", 2)
    cache.set("c", 3)
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, 2, 3])
  })
})
