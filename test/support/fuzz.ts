/**
 * What the fuzz suites share: one seed (FUZZ_SEED, printed with every failure so that it can be
 * replayed), bounded runs (count and time), hostile text, byte mutations of real files, and a
 * tally of the statuses seen, printed at the end for the record.
 */
import fc from "fast-check"

/** The seed of every fuzz suite: fixed, so that `npm test` stays reproducible; FUZZ_SEED=<n> replays or explores. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_261_125)

/** Runs of a property: `FUZZ_RUNS` scales every suite's default (0.5 halves them, 4 quadruples them). */
export const fuzzRuns = (runs: number) => Math.max(1, Math.round(runs * Number(process.env.FUZZ_RUNS_SCALE ?? 1)))

/** fast-check's settings for a suite: the seed, the runs, a time bound, no shrinking (each run is real I/O). */
export const fuzzParameters = (runs: number, timeLimitMs: number): fc.Parameters<unknown> => ({
  seed: FUZZ_SEED,
  numRuns: fuzzRuns(runs),
  // Past the time bound the runs stop and what ran counts: the suite stays bounded on a slow machine.
  interruptAfterTimeLimit: timeLimitMs,
  // Its failure message gives the seed, the path and the counterexample: FUZZ_SEED=<seed> replays it.
  endOnFailure: true
})

/** Characters PostgreSQL or JSON handle badly, and some that merely surprise: NUL, lone surrogates, controls, bidi, BOM. */
const nasty = fc.constantFrom(
  "\u0000",
  "\ud800",
  "\udfff",
  "\udc00",
  "\ud83d\ude00",
  "\uffff",
  "\ufffe",
  "\u202e",
  "\ufeff",
  "\u0007",
  "\\",
  "\"",
  "'",
  "<",
  "&",
  "%",
  "\n",
  "\r"
)

/** A character of any kind, and now and then a nasty one. */
const anyCharacter = fc.oneof({ weight: 1, arbitrary: nasty }, {
  weight: 4,
  arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 })
}, {
  weight: 10,
  arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 })
})

/** Text from a hostile client: any Unicode, NUL and unpaired surrogates included. */
export const hostileText = (maxLength = 64) => fc.string({ unit: anyCharacter, maxLength })

/** Now and then very long text (up to `longLength` characters), otherwise short. */
export const hostileTextSometimesLong = (longLength = 200_000) =>
  fc.oneof({ weight: 9, arbitrary: hostileText() }, {
    weight: 1,
    arbitrary: fc.integer({ min: Math.min(10_000, longLength), max: longLength }).map((n) =>
      "\u0000x\ud800".repeat(Math.ceil(n / 3)).slice(0, n)
    )
  })

export interface Mutation {
  readonly kind: "flip" | "set" | "insert" | "delete" | "duplicate" | "truncate"
  /** Where, as a fraction of the file's length. */
  readonly at: number
  readonly length: number
  readonly byte: number
}

/**
 * One to eight byte mutations, as a mutation fuzzer makes them, spread evenly over the file
 * (unbiased: fast-check's bias towards small values would hit the first bytes, the format's magic,
 * in most runs).
 */
export const mutations = fc.noBias(fc.array(
  fc.record({
    kind: fc.constantFrom<Mutation["kind"]>("flip", "flip", "set", "insert", "delete", "duplicate", "truncate"),
    // Uniform in [0, 1): an integer scaled (doubles crowd near zero, as floating point does).
    at: fc.integer({ min: 0, max: 999_999 }).map((n) => n / 1_000_000),
    length: fc.integer({ min: 1, max: 64 }),
    byte: fc.integer({ min: 0, max: 255 })
  }),
  { minLength: 1, maxLength: 8 }
))

/** `bytes` with the mutations applied in order (the original is not touched). */
export const mutate = (bytes: Uint8Array, plan: ReadonlyArray<Mutation>): Uint8Array => {
  let out = Buffer.from(bytes)
  for (const { at, byte, kind, length } of plan) {
    const offset = Math.floor(at * out.length)
    const end = Math.min(out.length, offset + length)
    switch (kind) {
      case "flip":
        for (let i = offset; i < end; i++) out[i] = out[i]! ^ (1 << (byte % 8))
        break
      case "set":
        out.fill(byte, offset, end)
        break
      case "insert":
        out = Buffer.concat([out.subarray(0, offset), Buffer.alloc(length, byte), out.subarray(offset)])
        break
      case "delete":
        out = Buffer.concat([out.subarray(0, offset), out.subarray(end)])
        break
      case "duplicate":
        out = Buffer.concat([out.subarray(0, end), out.subarray(offset, end), out.subarray(end)])
        break
      case "truncate":
        // Keeps at least the first half: a file cut at its first bytes only tests format detection.
        out = out.subarray(0, Math.max(Math.floor(out.length / 2), offset))
        break
    }
  }
  return out
}

/** Counts of what each step answered (`upload 200`, `page image 500`), for the suite's report. */
export class Tally {
  private readonly counts = new Map<string, number>()
  count(step: string, status: number | string) {
    const key = `${step} ${status}`
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1)
  }
  get total() {
    return [...this.counts.values()].reduce((a, b) => a + b, 0)
  }
  report(title: string) {
    const lines = [...this.counts].sort(([a], [b]) => a.localeCompare(b)).map(([key, n]) => `  ${key}: ${n}`)
    console.log(`${title} (FUZZ_SEED=${FUZZ_SEED})\n${lines.join("\n")}`)
  }
}
