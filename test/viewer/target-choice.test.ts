/**
 * The choice of a rendition target (Brokers.preference) and the weather body's list of targets
 * (parseTargetList), as pure functions: the draws of the weighted choice are counted over the whole
 * range of the random number, so the shares are exact, not a sample.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { preference } from "../../src/services/viewer/targets/Brokers.ts"
import { parseTargetList } from "../../src/services/viewer/targets/TargetList.ts"
import type { TargetState } from "../../src/services/viewer/targets/Weather.ts"

const target = (url: string, score: number | null, available = true): TargetState => ({
  url,
  available,
  score,
  checkedAt: null,
  error: available ? null : "connection refused",
  latencyMs: null
})

/** How often each target comes first over `steps` random numbers evenly spread over [0, 1). */
const firstShares = (states: ReadonlyArray<TargetState>, steps = 100_000) => {
  const counts = new Map<string, number>()
  for (let i = 0; i < steps; i++) {
    const first = preference(states, "weighted", 0, i / steps)[0]!
    counts.set(first, (counts.get(first) ?? 0) + 1)
  }
  return Object.fromEntries([...counts].map(([url, n]) => [url, n / steps]))
}

describe("preference", () => {
  it("weighted: each target comes first in proportion to 1 / (0.05 + score)", () => {
    const shares = firstShares([target("a", 0), target("b", 0.95), target("c", 0.2)])
    // Weights 20, 1 and 4 of 25.
    expect(shares.a).toBeCloseTo(20 / 25, 3)
    expect(shares.b).toBeCloseTo(1 / 25, 3)
    expect(shares.c).toBeCloseTo(4 / 25, 3)
  })

  it("weighted: a target not yet scored weighs as an idle one, a negative score as zero", () => {
    const shares = firstShares([target("new", null), target("idle", 0), target("odd", -3), target("busy", 1.95)])
    expect(shares.new).toBeCloseTo(20 / 60.5, 3)
    expect(shares.idle).toBeCloseTo(20 / 60.5, 3)
    expect(shares.odd).toBeCloseTo(20 / 60.5, 3)
    expect(shares.busy).toBeCloseTo(0.5 / 60.5, 3)
  })

  it("weighted: the others follow in list order, those taken out last", () => {
    const states = [target("a", 0.1), target("down", 0, false), target("b", 0.1), target("c", 0.1)]
    expect(preference(states, "weighted", 0, 0.5)).toEqual(["b", "a", "c", "down"])
    expect(preference(states, "weighted", 0, 0.999)).toEqual(["c", "a", "b", "down"])
    expect(preference(states, "weighted", 0, 0)).toEqual(["a", "b", "c", "down"])
  })

  it("round-robin: each available target in turn, whatever the scores", () => {
    const states = [target("a", 5), target("down", 0, false), target("b", 0), target("c", 1)]
    const firsts = [0, 1, 2, 3, 4, 5].map((turn) => preference(states, "round-robin", turn, 0.5)[0])
    expect(firsts).toEqual(["a", "b", "c", "a", "b", "c"])
    expect(preference(states, "round-robin", 1, 0.5)).toEqual(["b", "a", "c", "down"])
  })

  it("best: the lowest score; an unscored target only when no other has a score", () => {
    expect(preference([target("a", 0.7), target("b", 0.2), target("c", 0.4)], "best", 9, 0.9)).toEqual([
      "b",
      "a",
      "c"
    ])
    expect(preference([target("new", null), target("scored", 3)], "best", 0, 0)[0]).toBe("scored")
    expect(preference([target("new", null), target("newer", null)], "best", 0, 0)[0]).toBe("new")
    // A target taken out never wins on a score read before it went down.
    expect(preference([target("down", 0, false), target("up", 2)], "best", 0, 0)).toEqual(["up", "down"])
  })

  it("with every target taken out, all are still tried, in list order", () => {
    const states = [target("a", 0, false), target("b", 0, false)]
    for (const choice of ["weighted", "round-robin", "best"] as const) {
      expect(preference(states, choice, 1, 0.7)).toEqual(["a", "b"])
    }
    expect(preference([], "weighted", 0, 0.5)).toEqual([])
  })
})

const parse = (body: string) => Effect.runSync(Effect.either(parseTargetList(body)))

describe("parseTargetList", () => {
  it("reads the braces-and-brackets list: free white space, quotes, trailing slashes, duplicates once", () => {
    expect(parse("{[http://broker-a:8761, http://broker-b:8761]}")).toEqual(
      Either.right(["http://broker-a:8761", "http://broker-b:8761"])
    )
    expect(parse(` \n{ [ "https://b.example/render/" ,http://a:1,\n http://a:1/ ] }\n`)).toEqual(
      Either.right(["https://b.example/render", "http://a:1"])
    )
    expect(parse("{[http://a:1,,]}")).toEqual(Either.right(["http://a:1"]))
  })

  it("refuses anything else with a message saying what is wrong", () => {
    const message = (body: string) => {
      const result = parse(body)
      if (Either.isRight(result)) throw new Error(`'${body}' was accepted as ${result.right.join(", ")}`)
      expect(result.left._tag).toBe("InvalidRequest")
      return result.left.message
    }
    expect(message("[http://a:1]")).toContain("braces and brackets")
    expect(message("http://a:1")).toContain("braces and brackets")
    expect(message("{[http://a:1]} trailing")).toContain("braces and brackets")
    expect(message("{[ ]}")).toContain("at least one")
    expect(message("{[ftp://a:1]}")).toContain("'ftp://a:1' is not a broker URL")
    expect(message("{[http://a:1, not a url]}")).toContain("'not a url'")
    // A user, a query or a fragment make no broker address: each is refused, named.
    for (const url of ["http://user:secret@a:1", "http://a:1/?x=1", "http://a:1/#top"]) {
      expect(message(`{[http://b:2, ${url}]}`)).toContain(`'${url}' is not a broker URL`)
    }
  })
})
