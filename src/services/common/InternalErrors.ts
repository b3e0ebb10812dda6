/**
 * What a client and an operator are told of an internal failure: a short identifier shared by the
 * answer and the log line, the step that failed and why, in one sentence (never a stack trace).
 */
import { Cause } from "effect"
import { randomBytes } from "node:crypto"

/** Twelve hex digits: short enough to read over the phone, enough not to repeat in a log. */
export const newErrorId = () => randomBytes(6).toString("hex")

/**
 * A stack frame of a named step: `Effect.fn("DocumentRegistry.saveRendition")` puts its name in a
 * failure's trace whether or not spans are recorded. Frames of Node's own modules (`Worker.emit`)
 * and of packages are not steps of ours.
 */
const STEP_FRAME = /^\s+at ([A-Z][\w$]*\.[\w$]+) \((?!node:)([^)]*)\)$/gm

const LONGEST_REASON = 300

/**
 * The innermost named step of a failure, its first line (`SqlError: unsupported Unicode escape
 * sequence`), and the sentence an answer gives of them.
 */
export const describeFailure = (cause: Cause.Cause<unknown>) => {
  const pretty = Cause.pretty(cause)
  const step = [...pretty.matchAll(STEP_FRAME)].find((frame) => !frame[2]!.includes("/node_modules/"))?.[1] ??
    "handling the request"
  const firstLine = pretty.split("\n", 1)[0]!.trim() || "an unknown failure"
  // A driver's own words are the cause's (@effect/sql-pg says "Failed to execute statement", PostgreSQL why).
  const inner = (Cause.squash(cause) as { readonly cause?: unknown } | undefined)?.cause
  const innerLine = inner instanceof Error ? inner.message.split("\n", 1)[0]!.trim() : ""
  const whole = innerLine !== "" && !firstLine.includes(innerLine) ? `${firstLine} (${innerLine})` : firstLine
  const reason = whole.length > LONGEST_REASON ? `${whole.slice(0, LONGEST_REASON)}…` : whole
  return { step, reason, sentence: `Internal error in ${step}: ${reason}` }
}
