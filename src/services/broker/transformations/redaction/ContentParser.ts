/**
 * Tokenises a content stream into operations, keeping byte spans so that untouched parts are
 * copied as they are; operands are read as far as redaction needs them (numbers, names,
 * dictionaries of marked content).
 */
import { latin1Text } from "./ContentBytes.ts"

export type Operand =
  | { readonly kind: "number"; readonly value: number; readonly start: number; readonly end: number }
  | { readonly kind: "name"; readonly value: string; readonly start: number; readonly end: number }
  | {
    readonly kind: "dict"
    readonly entries: ReadonlyArray<readonly [string, Operand]>
    readonly start: number
    readonly end: number
  }
  | { readonly kind: "other"; readonly start: number; readonly end: number }

export interface Operation {
  readonly operator: string
  readonly operands: ReadonlyArray<Operand>
  /** Byte span of the whole operation, operands included. */
  readonly start: number
  readonly end: number
  /** For BI: the spans of its dictionary entries (between BI and ID) and of its data. */
  readonly inline?: { readonly dict: readonly [number, number]; readonly data: readonly [number, number] }
}

const SPACE = new Uint8Array(256)
for (const c of [0, 9, 10, 12, 13, 32]) SPACE[c] = 1
const DELIMITER = new Uint8Array(256)
for (const c of "()<>[]{}/%") DELIMITER[c.charCodeAt(0)] = 1
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/

/** Operations one after the other, from the start of the stream. */
export class ContentParser {
  private pos = 0
  constructor(private readonly data: Uint8Array) {}

  next(): Operation | undefined {
    const operands: Array<Operand> = []
    let start = -1
    for (;;) {
      this.skipSpace()
      if (this.pos >= this.data.length) return undefined
      if (start < 0) start = this.pos
      const token = this.object()
      if (token.kind === "operator") {
        if (token.value !== "BI") return { operator: token.value, operands, start, end: this.pos }
        const inline = this.inlineImage()
        return { operator: token.value, operands, start, end: this.pos, inline }
      }
      operands.push(token)
    }
  }

  private skipSpace() {
    const d = this.data
    while (this.pos < d.length) {
      if (SPACE[d[this.pos]!]) this.pos++
      else if (d[this.pos] === 0x25) {
        while (this.pos < d.length && d[this.pos] !== 0x0a && d[this.pos] !== 0x0d) this.pos++
      } else break
    }
  }

  private object(): Operand | { readonly kind: "operator"; readonly value: string } {
    const d = this.data
    const start = this.pos
    const c = d[this.pos]!
    if (c === 0x28) { // ( string )
      let depth = 0
      while (this.pos < d.length) {
        const b = d[this.pos++]!
        if (b === 0x5c) this.pos++
        else if (b === 0x28) depth++
        else if (b === 0x29 && --depth === 0) break
      }
      return { kind: "other", start, end: this.pos }
    }
    if (c === 0x3c && d[this.pos + 1] === 0x3c) { // << dict >>
      this.pos += 2
      const entries: Array<readonly [string, Operand]> = []
      for (;;) {
        this.skipSpace()
        if (this.pos >= d.length) break
        if (d[this.pos] === 0x3e) {
          this.pos += 2
          break
        }
        const key = this.object()
        this.skipSpace()
        const value = this.pos < d.length && d[this.pos] !== 0x3e ? this.object() : undefined
        if (key.kind === "name" && value !== undefined && value.kind !== "operator") entries.push([key.value, value])
      }
      return { kind: "dict", entries, start, end: this.pos }
    }
    if (c === 0x3c) { // <hex>
      while (this.pos < d.length && d[this.pos] !== 0x3e) this.pos++
      this.pos++
      return { kind: "other", start, end: this.pos }
    }
    if (c === 0x5b) { // [ array ]
      this.pos++
      for (;;) {
        this.skipSpace()
        if (this.pos >= d.length) break
        if (d[this.pos] === 0x5d) {
          this.pos++
          break
        }
        this.object()
      }
      return { kind: "other", start, end: this.pos }
    }
    if (c === 0x2f) { // /Name
      this.pos++
      while (this.pos < d.length && !SPACE[d[this.pos]!] && !DELIMITER[d[this.pos]!]) this.pos++
      const raw = latin1Text(d.subarray(start + 1, this.pos))
      return {
        kind: "name",
        value: raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
        start,
        end: this.pos
      }
    }
    if (DELIMITER[c]) { // stray ) > ] { }
      this.pos++
      return { kind: "other", start, end: this.pos }
    }
    // Numbers and operators make up most of a stream: built char by char, cheaper than a Buffer per token.
    let word = ""
    while (this.pos < d.length && !SPACE[d[this.pos]!] && !DELIMITER[d[this.pos]!]) {
      word += String.fromCharCode(d[this.pos++]!)
    }
    if (NUMBER.test(word)) return { kind: "number", value: Number(word), start, end: this.pos }
    if (word === "true" || word === "false" || word === "null") return { kind: "other", start, end: this.pos }
    return { kind: "operator", value: word }
  }

  /** BI <dict> ID <bytes> EI: the data ends at an EI between white space. */
  private inlineImage(): { readonly dict: readonly [number, number]; readonly data: readonly [number, number] } {
    const d = this.data
    const dictStart = this.pos
    let dictEnd = this.pos
    for (;;) {
      this.skipSpace()
      if (this.pos >= d.length) return { dict: [dictStart, this.pos], data: [this.pos, this.pos] }
      dictEnd = this.pos
      const token = this.object()
      if (token.kind === "operator" && token.value === "ID") break
    }
    const dataStart = ++this.pos
    for (let i = dataStart; i + 1 < d.length; i++) {
      if (
        d[i] === 0x45 && d[i + 1] === 0x49 && SPACE[d[i - 1]!] &&
        (i + 2 >= d.length || SPACE[d[i + 2]!] || DELIMITER[d[i + 2]!])
      ) {
        this.pos = i + 2
        return { dict: [dictStart, dictEnd], data: [dataStart, i - 1] }
      }
    }
    this.pos = d.length
    return { dict: [dictStart, dictEnd], data: [dataStart, d.length] }
  }
}

/** The resource an operation names by its first operand (Do, sh, gs). */
export const resourceName = (op: Operation): string | undefined => {
  const first = op.operands[0]
  return first?.kind === "name" ? first.value : undefined
}

/** The operation's numeric operands, in order. */
export const numbers = (op: Operation): Array<number> =>
  op.operands.flatMap((o) => o.kind === "number" ? [o.value] : [])
