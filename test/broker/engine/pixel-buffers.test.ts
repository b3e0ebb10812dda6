/**
 * Pixel buffers kept between pages (engine/PixelBuffers.ts): a page reuses a released buffer
 * instead of allocating 8 MB, no buffer is handed out twice while sharp still reads it, and what
 * waits between pages stays within its bytes. The pages drawn while others are still being encoded
 * come out as when drawn one at a time.
 */
import { describe, expect, it } from "@effect/vitest"
import { createHash, pbkdf2 } from "node:crypto"
import { PixelBuffers } from "../../../src/services/broker/engine/PixelBuffers.ts"
import { renderPng } from "../../../src/services/broker/engine/Rasterizer.ts"
import { CORPUS } from "../../support/backends.ts"

const MiB = 1024 * 1024

/** Work on every thread of libuv's pool (4 by default) for a moment: what is queued next waits. */
const occupyThreadPool = () =>
  Promise.all(
    Array.from({ length: Number(process.env.UV_THREADPOOL_SIZE ?? 4) }, () =>
      new Promise((resolve, reject) =>
        pbkdf2("busy", "salt", 100_000, 32, "sha256", (error, key) => (error ? reject(error) : resolve(key)))
      ))
  )

describe("pixel buffers", () => {
  it("a released buffer is the next page's, a held one never", () => {
    const buffers = new PixelBuffers(32 * MiB)
    const first = buffers.take(8 * MiB)
    const second = buffers.take(8 * MiB)
    expect(second.pixels.buffer).not.toBe(first.pixels.buffer)
    first.release()
    const third = buffers.take(7 * MiB)
    expect(third.pixels.buffer).toBe(first.pixels.buffer)
    expect(third.pixels.length).toBe(7 * MiB)
    // A second release of the same buffer must not put it in the spares twice.
    first.release()
    expect(buffers.waitingBytes).toBe(0)
  })

  it("what waits between pages stays within its bytes; a larger buffer is used once", () => {
    const buffers = new PixelBuffers(20 * MiB)
    const held = [buffers.take(8 * MiB), buffers.take(8 * MiB), buffers.take(8 * MiB)]
    held.forEach((buffer) => buffer.release())
    expect(buffers.waitingBytes).toBe(16 * MiB)
    const large = buffers.take(24 * MiB)
    large.release()
    expect(buffers.waitingBytes).toBe(16 * MiB)
    expect(buffers.take(24 * MiB).pixels.buffer).not.toBe(large.pixels.buffer)
  })

  it("pages drawn while others are encoded come out as when drawn one at a time", async () => {
    const source = { hash: "tracemonkey.pdf", path: `${CORPUS}pdf/tracemonkey.pdf` }
    const settings = { width: 900, rotation: 0, filters: [], maxPixels: 60_000_000 }
    const digest = (png: Uint8Array) => createHash("sha256").update(png).digest("hex")
    const alone = [digest(await renderPng(source, 0, settings)), digest(await renderPng(source, 1, settings))]
    expect(alone[0]).not.toBe(alone[1])
    // Each page's encoding is queued behind work that keeps libuv's threads (sharp's) busy, and the
    // next page is drawn meanwhile: a buffer given back before sharp has read it would be drawn
    // over by the next page, and the earlier image would show the later page.
    const pages = [0, 1, 0, 1, 0, 1]
    const encoding: Array<Promise<Uint8Array>> = []
    const busy: Array<Promise<unknown>> = []
    for (const page of pages) {
      busy.push(occupyThreadPool())
      encoding.push(renderPng(source, page, settings))
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(busy)
    expect((await Promise.all(encoding)).map(digest)).toEqual(pages.map((page) => alone[page]))
  })
})
