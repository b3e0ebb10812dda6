/**
 * The small parsers at the edge: page image descriptors and Range headers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { parseRange } from "../../src/http/common/FileResponse.ts"
import { PageImageDescriptorFromString } from "../../src/schemas/broker/PageImage.ts"

const decode = Schema.decodeUnknownEither(PageImageDescriptorFromString)

describe("page image descriptor", () => {
  it("reads width, rotation and filters in order, and prints a canonical key", () => {
    const d = Either.getOrThrow(decode("IM_800_-90_FILTERS~c~20~B~-5~I~1"))
    expect({ width: d.width, rotation: d.rotation, filters: d.filters }).toEqual({
      width: 800,
      rotation: 270,
      filters: [{ code: "C", value: 20 }, { code: "B", value: -5 }, { code: "I", value: 1 }]
    })
    expect(d.key).toBe("IM_800_270_FILTERS~C~20~B~-5~I~1")
    expect(Either.getOrThrow(decode("IM_800_450")).key).toBe("IM_800_90")
  })

  it("keeps the last A filter, after the pixel filters, and leaves out A~1 (the default) from the key", () => {
    expect(Either.getOrThrow(decode("IM_800_0_FILTERS~a~0~C~10")).key).toBe("IM_800_0_FILTERS~C~10~A~0")
    expect(Either.getOrThrow(decode("IM_800_0_FILTERS~A~1")).key).toBe("IM_800_0")
    expect(Either.getOrThrow(decode("IM_800_0_FILTERS~A~1~A~0")).key).toBe("IM_800_0_FILTERS~A~0")
    expect(Either.getOrThrow(decode("IM_800_0_FILTERS~A~0~I~1~A~1")).key).toBe("IM_800_0_FILTERS~I~1")
  })

  it("refuses what it cannot read, saying why", () => {
    for (
      const [text, reason] of [
        ["IM_800", /must look like/],
        ["IM_800_45", /multiple of 90/],
        ["IM_800_0_FILTERS~Z~1", /unknown filter code 'Z'/],
        ["IM_800_0_FILTERS~C", /must look like/],
        ["im_800_0", /must look like/]
      ] as const
    ) {
      const result = decode(text)
      expect(Either.isLeft(result), text).toBe(true)
      expect(String(Either.isLeft(result) ? result.left : ""), text).toMatch(reason)
    }
  })
})

describe("Range header", () => {
  const range = (header: string | undefined, size = 100) => Effect.runSync(Effect.either(parseRange(header, size)))

  it("reads x-y, x- and -n, clamping the end to the file", () => {
    expect(range("bytes=0-9")).toEqual(Either.right({ start: 0, end: 9 }))
    expect(range("bytes=90-")).toEqual(Either.right({ start: 90, end: 99 }))
    expect(range("bytes=95-500")).toEqual(Either.right({ start: 95, end: 99 }))
    expect(range("bytes=-10")).toEqual(Either.right({ start: 90, end: 99 }))
    expect(range("bytes=-500")).toEqual(Either.right({ start: 0, end: 99 }))
  })

  it("416 when nothing overlaps, 400 when the header is missing or malformed", () => {
    for (const header of ["bytes=100-120", "bytes=50-40", "bytes=-0"]) {
      expect(Either.getLeft(range(header)).pipe((l) => l._tag === "Some" && l.value._tag), header).toBe(
        "RangeNotSatisfiable"
      )
    }
    expect(Either.getLeft(range("bytes=0-0", 0)).pipe((l) => l._tag === "Some" && l.value._tag)).toBe(
      "RangeNotSatisfiable"
    )
    for (const header of [undefined, "", "bytes=", "bytes=a-b", "bytes=0-1,5-6", "pages=1-2"]) {
      expect(Either.getLeft(range(header)).pipe((l) => l._tag === "Some" && l.value._tag), String(header)).toBe(
        "InvalidRequest"
      )
    }
  })
})
