/**
 * Content streams are bytes, read and written as Latin-1 text so that strings and image data pass
 * through unchanged; numbers are written as content-stream operands.
 */
import type { Point } from "../../engine/Matrix.ts"

export const latin1 = (text: string): Uint8Array => Buffer.from(text, "latin1")

export const latin1Text = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")

export const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => Buffer.concat(parts)

/** A number as an operand: at most six decimals, never an exponent or "-0" (neither is PDF syntax). */
export const num = (n: number): string => {
  const text = (Math.round(n * 1e6) / 1e6).toString()
  return text === "-0" ? "0" : text.includes("e") ? n.toFixed(6) : text
}

export const point = ([x, y]: Point): string => `${num(x)} ${num(y)}`
