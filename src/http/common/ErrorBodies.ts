/**
 * Every error answer is JSON in the service's error shape, also those the HttpApi layer makes on
 * its own: an unknown route, a body that is not JSON (both answered with an empty body otherwise),
 * a parameter or body that does not match the contract (whose message is otherwise a schema dump),
 * and an internal failure (a defect), which says which step failed. Every 5xx answer carries an
 * error identifier (`X-Error-Id`, and in the body) that its log line carries too.
 */
import type { HttpApi, HttpApiGroup } from "@effect/platform"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerRespondable from "@effect/platform/HttpServerRespondable"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Option } from "effect"
import { describeFailure, newErrorId } from "../../services/common/InternalErrors.ts"
import { type DecodeIssue, readableIssues } from "../../services/common/ReadableIssues.ts"
import { abridgedDecodeError } from "./RequestLimits.ts"

/** An error body as JSON gives it. */
type ErrorBody = { readonly [field: string]: unknown }

/** How a service writes its errors. */
export interface ErrorShape {
  /** An error of one of its kinds (`internal`: a defect, `other`: any other status without a body), saying what happened. */
  readonly body: (
    status: number,
    kind: "notFound" | "badRequest" | "decode" | "internal" | "other",
    message: string,
    issues?: ReadonlyArray<unknown>
  ) => unknown
  /** A 5xx error body with the identifier its log line carries. */
  readonly identified: (body: ErrorBody, errorId: string) => unknown
}

/** The broker's errors: `{_tag, message}`, and `errorId` on a 5xx (see docs/errors.md). */
export const brokerErrorShape: ErrorShape = {
  body: (_status, kind, message, issues) =>
    kind === "decode"
      ? { _tag: "HttpApiDecodeError", message, issues }
      : {
        _tag: kind === "notFound"
          ? "RouteNotFound"
          : kind === "badRequest"
          ? "InvalidRequest"
          : kind === "internal"
          ? "InternalError"
          : "HttpError",
        message
      },
  identified: (body, errorId) => ({ ...body, errorId })
}

/** Whether the request carries a body that is not declared as JSON. */
const sentOtherThanJson = (request: HttpServerRequest.HttpServerRequest) => {
  if (request.method === "GET" || request.method === "DELETE" || request.method === "HEAD") return false
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  return type !== "application/json"
}

/** Rewrites the contract-mismatch answer: one readable sentence, the issues kept for programs. */
const clarifyDecodeError = (
  shape: ErrorShape,
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
) => {
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
    ? `The body must be JSON sent with Content-Type: application/json (got '${
      request.headers["content-type"] ?? "none"
    }')`
    : `The request does not match the API: ${readableIssues(parsed.issues)}`
  return Option.some(HttpServerResponse.unsafeJson(shape.body(400, "decode", message, parsed.issues), { status: 400 }))
}

/** A part ID written with its slashes (`<id>/1/2`), as a layout lists it: it needs '@' in a URL. */
const PART_PATH = /^\/documents\/[^/]+(?:\/\d+)+(?:\/|$)/

const noEndpoint = (request: HttpServerRequest.HttpServerRequest) => {
  const path = request.url.split("?")[0]!
  const hint = PART_PATH.test(path)
    ? ": a part's ID goes into a URL with '@' between the indices (a layout's b64_x/1 is /documents/b64_x@1/...)"
    : ": see /swagger-ui/index.html"
  return `No endpoint ${request.method} ${path}${hint}`
}

/** An error answer the platform made without a body: say what happened. */
const describeEmpty = (shape: ErrorShape, request: HttpServerRequest.HttpServerRequest, status: number) =>
  HttpServerResponse.unsafeJson(
    status === 404
      ? shape.body(404, "notFound", noEndpoint(request))
      : status === 400
      ? shape.body(400, "badRequest", "The request body could not be read: it is not valid JSON")
      : shape.body(status, "other", `The request failed with status ${status}`),
    { status }
  )

const ERROR_ID = "x-error-id"

/**
 * A 5xx answer made without an identifier (a declared error such as DocumentProcessingFailed, or
 * one the platform made): it gets one, in its body and header, and a log line that names it.
 */
const identify = (
  shape: ErrorShape,
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
) =>
  Effect.gen(function*() {
    if (response.status < 500 || response.headers[ERROR_ID] !== undefined) return response
    const errorId = newErrorId()
    let body: ErrorBody | undefined
    if (response.body._tag === "Uint8Array") {
      try {
        body = JSON.parse(new TextDecoder().decode(response.body.body))
      } catch {
        body = undefined
      }
    }
    const message = typeof body?.message === "string" ? body.message : `status ${response.status}`
    // A declared 5xx is the contract's answer to a request (a composite document has no page
    // images): a warning. A defect is logged as an error, with its whole failure, by internalFailure.
    yield* Effect.logWarning(
      `Error ${errorId}: ${request.method} ${request.url} answered ${response.status}: ${message}`
    )
    return HttpServerResponse.unsafeJson(
      shape.identified(body ?? (shape.body(response.status, "other", message) as ErrorBody), errorId),
      {
        status: response.status,
        headers: { ...response.headers, [ERROR_ID]: errorId }
      }
    )
  })

/**
 * A failure that is no declared error (a defect: a bug or a broken dependency): logged whole with a
 * new error identifier, answered 500 with the step that failed and why, in a sentence. Declared
 * errors, the platform's own (an unknown route, an unreadable body) and interruptions pass on, a
 * contract mismatch with its refused values cut short.
 */
const internalFailure = (shape: ErrorShape) => <E>(cause: Cause.Cause<E>) =>
  Effect.gen(function*() {
    // A refused value is quoted once per rule it breaks: cut before the answer is encoded.
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && failure.value instanceof HttpApiError.HttpApiDecodeError) {
      return yield* Effect.fail(abridgedDecodeError(failure.value) as E)
    }
    // A body that is not JSON dies with the platform's RequestError, which answers 400 itself.
    const answerable = Option.isSome(Cause.failureOption(cause)) ||
      HttpServerRespondable.isRespondable(Cause.squash(cause))
    if (answerable || Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
    const request = yield* HttpServerRequest.HttpServerRequest
    const errorId = newErrorId()
    const { sentence } = describeFailure(cause)
    yield* Effect.logError(`Error ${errorId}: ${request.method} ${request.url}: ${sentence}`, cause)
    return HttpServerResponse.unsafeJson(
      shape.identified(shape.body(500, "internal", sentence) as ErrorBody, errorId),
      {
        status: 500,
        headers: { [ERROR_ID]: errorId }
      }
    )
  })

/**
 * Internal failures answered in the service's error shape: an API-level middleware, since it must
 * see a defect before the server turns it into an empty 500 (what `HttpApiBuilder.serve`'s
 * middleware sees has already been answered).
 */
export const internalErrors = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  shape: ErrorShape
) => HttpApiBuilder.middleware(api, (app) => Effect.catchAllCause(app, internalFailure(shape)))

/** Runs on every response just before it is sent (middleware proper only sees responses already sent). */
export const errorBodies = (shape: ErrorShape) =>
  HttpMiddleware.make((app) =>
    Effect.zipRight(
      HttpApp.appendPreResponseHandler((request, response) => {
        const described = response.status >= 400 && response.body._tag === "Empty"
          ? describeEmpty(shape, request, response.status)
          : Option.getOrElse(clarifyDecodeError(shape, request, response), () => response)
        return identify(shape, request, described)
      }),
      app
    )
  )
