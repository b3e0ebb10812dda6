/**
 * Schema failures told in one sentence, one clause per path (`parameters: is missing`): for people
 * reading an error answer, where the tree Schema prints by default spans many lines.
 */
import { ParseResult } from "effect"

export interface DecodeIssue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/** "Expected <one member of a union>, actual <value>": one issue per member the value is not. */
const MISMATCH = /^Expected (.+), actual (.+)$/s
/** The `undefined` or `null` member of an optional or nullable field: noise next to the real issue. */
const ABSENT_ALTERNATIVE = /^Expected (undefined|null), actual /

/**
 * One sentence of the issues, one clause per path: the union members a value failed are listed
 * together ("Expected one of A, B, actual C"), and an optional field's "Expected undefined" (or a
 * nullable one's "Expected null") dropped when there is a real issue at or below its path.
 */
export const readableIssues = (issues: ReadonlyArray<DecodeIssue>) => {
  const within = (inner: DecodeIssue, outer: DecodeIssue) => outer.path.every((key, k) => inner.path[k] === key)
  const real = issues.filter((issue) => !ABSENT_ALTERNATIVE.test(issue.message))
  const kept = issues.filter((issue) =>
    !ABSENT_ALTERNATIVE.test(issue.message) || !real.some((other) => within(other, issue))
  )
  const byPath = new Map<string, Array<string>>()
  for (const issue of kept) {
    const path = issue.path.map(String).join(".")
    byPath.set(path, [...(byPath.get(path) ?? []), issue.message])
  }
  return [...byPath].map(([path, all]) => {
    const messages = [...new Set(all)]
    const mismatches = messages.map((message) => MISMATCH.exec(message))
    const actual = mismatches[0]?.[2]
    const text = messages.length > 1 && mismatches.every((m) => m !== null && m[2] === actual)
      ? `Expected one of ${mismatches.map((m) => m![1]).join(", ")}, actual ${actual}`
      : messages.join("; ")
    return path.length > 0 ? `${path}: ${text}` : text
  }).join("; ")
}

/** A ParseError in one sentence. */
export const readableParseError = (error: ParseResult.ParseError) =>
  readableIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
