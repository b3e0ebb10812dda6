/**
 * Inside a PDF worker thread: the buffers PDFium's pixels are copied into for sharp, kept from one
 * page to the next. Why: a page at 1240 px is 6 MB of RGB, and a new buffer for every page is
 * external memory V8 counts against the thread. Measured in the broker (tracemonkey.pdf page 1,
 * fresh widths one after another), the thread then ran a full mark-compact of its heap every second
 * or third page ("external memory pressure" in --trace-gc), and V8's helper threads spent about
 * 30 ms of CPU a page on it: more than PDFium's drawing and the PNG together. A kept buffer is
 * reused instead, so drawing a page allocates nothing large.
 *
 * At most `keepBytes` of buffers wait between pages (PIXEL_BUFFER_BYTES_PER_WORKER); a buffer
 * larger than that is used once and left to the garbage collector, as before.
 */

/** Buffers are allocated in steps of this many bytes, so pages of nearly one size share them. */
const GRAIN = 1024 * 1024

/** A buffer of the size asked for (its bytes undefined until written), and how to give it back. */
export interface PixelBuffer {
  readonly pixels: Buffer
  /** Once nothing reads `pixels` any more (sharp has encoded them); a second call does nothing. */
  readonly release: () => void
}

export class PixelBuffers {
  /** Buffers waiting for a page, oldest first. */
  private readonly spare: Array<Buffer> = []
  private spareBytes = 0

  constructor(private readonly keepBytes: number) {}

  /** The bytes of the buffers now waiting between pages (what the tests check against `keepBytes`). */
  get waitingBytes() {
    return this.spareBytes
  }

  take(bytes: number): PixelBuffer {
    const whole = this.smallestFitting(bytes) ?? Buffer.allocUnsafeSlow(Math.ceil(bytes / GRAIN) * GRAIN)
    let released = false
    return {
      pixels: whole.subarray(0, bytes),
      release: () => {
        if (released) return
        released = true
        this.keep(whole)
      }
    }
  }

  private smallestFitting(bytes: number) {
    let best = -1
    this.spare.forEach((buffer, i) => {
      if (buffer.length >= bytes && (best < 0 || buffer.length < this.spare[best]!.length)) best = i
    })
    if (best < 0) return undefined
    const [found] = this.spare.splice(best, 1)
    this.spareBytes -= found!.length
    return found
  }

  private keep(buffer: Buffer) {
    if (buffer.length > this.keepBytes) return
    this.spare.push(buffer)
    this.spareBytes += buffer.length
    while (this.spareBytes > this.keepBytes) this.spareBytes -= this.spare.shift()!.length
  }
}
