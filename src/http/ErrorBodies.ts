/**
 * Every error answer is JSON in the service's error shape, also those the HttpApi layer makes on
 * its own: an unknown route, a body that is not JSON (both answered with an empty body otherwise),
 * and a parameter or body that does not match the contract (whose message is otherwise a schema dump).
 */
import { HttpApp, HttpMiddleware, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"

interface DecodeIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/** How a service writes an error: which of its kinds (`notFound`, `badRequest`, `decode`, `other`) and what happened. */
export type ErrorShape = (
  status: number,
  kind: "notFound" | "badRequest" | "decode" | "other",
  message: string,
  issues?: ReadonlyArray<unknown>
) => unknown

/** The broker's errors: `{_tag, message}` (see docs/errors.md). */
export const brokerErrorShape: ErrorShape = (_status, kind, message, issues) =>
  kind === "decode"
    ? { _tag: "HttpApiDecodeError", message, issues }
    : { _tag: kind === "notFound" ? "RouteNotFound" : kind === "badRequest" ? "InvalidRequest" : "HttpError", message }

/** "Expected <one member of a union>, actual <value>": one issue per member the value is not. */
const MISMATCH = /^Expected (.+), actual (.+)$/s
/** The `undefined` or `null` member of an optional or nullable field: noise next to the real issue. */
const ABSENT_ALTERNATIVE = /^Expected (undefined|null), actual /

/**
 * One sentence of the issues, one clause per path: the union members a value failed are listed
 * together ("Expected one of A, B, actual C"), and an optional field's "Expected undefined" (or a
 * nullable one's "Expected null") dropped when there is a real issue at or below its path.
 */
const readableIssues = (issues: ReadonlyArray<DecodeIssue>) => {
  const within = (inner: DecodeIssue, outer: DecodeIssue) => outer.path.every((key, k) => inner.path[k] === key)
  const real = issues.filter((issue) => !ABSENT_ALTERNATIVE.test(issue.message))
  const kept = issues.filter((issue) => !ABSENT_ALTERNATIVE.test(issue.message) || !real.some((other) => within(other, issue)))
  const byPath = new Map<string, Array<string>>()
  for (const issue of kept) {
    const path = issue.path.join(".")
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

/** Whether the request carries a body that is not declared as JSON. */
const sentOtherThanJson = (request: HttpServerRequest.HttpServerRequest) => {
  if (request.method === "GET" || request.method === "DELETE" || request.method === "HEAD") return false
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  return type !== "application/json"
}

/** Rewrites the contract-mismatch answer: one readable sentence, the issues kept for programs. */
const clarifyDecodeError = (shape: ErrorShape, request: HttpServerRequest.HttpServerRequest, response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 400 || response.body._tag !== "Uint8Array") return Option.none()
  let parsed: { _tag?: string; issues?: ReadonlyArray<DecodeIssue> }
  try {
    parsed = JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return Option.none()
  }
  if (parsed._tag !== "HttpApiDecodeError" || !Array.isArray(parsed.issues)) return Option.none()
  const bodyIssue = parsed.issues.some((issue) => issue.path.length === 0 && issue.message.startsWith("Expected "))
  // `curl -d` sends a form: its fields then read as missing ones, which says nothing about the real mistake.
  const sentForm = (request.headers["content-type"] ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")
  const message = (bodyIssue || sentForm) && sentOtherThanJson(request)
    ? `The body must be JSON sent with Content-Type: application/json (got '${request.headers["content-type"] ?? "none"}')`
    : `The request does not match the API: ${readableIssues(parsed.issues)}`
  return Option.some(HttpServerResponse.unsafeJson(shape(400, "decode", message, parsed.issues), { status: 400 }))
}

/** An error answer the platform made without a body: say what happened. */
const describeEmpty = (shape: ErrorShape, request: HttpServerRequest.HttpServerRequest, status: number) =>
  HttpServerResponse.unsafeJson(
    status === 404
      ? shape(404, "notFound", `No endpoint ${request.method} ${request.url.split("?")[0]}: see /swagger-ui/index.html`)
      : status === 400
      ? shape(400, "badRequest", "The request body could not be read: it is not valid JSON")
      : shape(status, "other", `The request failed with status ${status}`),
    { status }
  )

/** Runs on every response just before it is sent (middleware proper only sees responses already sent). */
export const errorBodies = (shape: ErrorShape) =>
  HttpMiddleware.make((app) =>
    Effect.zipRight(
      HttpApp.appendPreResponseHandler((request, response) =>
        Effect.succeed(
          response.status >= 400 && response.body._tag === "Empty"
            ? describeEmpty(shape, request, response.status)
            : Option.getOrElse(clarifyDecodeError(shape, request, response), () => response)
        )
      ),
      app
    )
  )
