/**
 * What a request may cost before it is refused: a JSON body at most so many bytes (read no further:
 * a body of hundreds of megabytes would hold up the event loop of every service in the process while
 * it is parsed), and a refusal that quotes the values it refuses briefly (the contract-mismatch
 * answer quotes a refused value once per rule it breaks: a 10 MB title came back as a 168 MB answer).
 * Uploads and annotation files are streamed and bounded on their own (MAX_UPLOAD_BYTES,
 * ANNOTATION_FILE_MAX_BYTES, the viewer's VIEWER_MAX_UPLOAD_BYTES for its multipart uploads).
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Config, Effect, Option } from "effect"
import type { ErrorShape } from "./ErrorBodies.ts"

/** The most bytes of a JSON body, per service: `<name>` (the gateway's carry base64 images, hence more). */
export const jsonBodyLimit = (name: string, fallback: number) => Config.integer(name).pipe(Config.withDefault(fallback))

/** Bodies streamed to their handler, which bound them themselves. */
const STREAMED = new Set(["application/octet-stream", "multipart/form-data"])

/**
 * JSON (and form) bodies at most `maxBytes`: a body that says it is larger is refused before it is
 * read (400, as the contract answers a request it cannot take); one that grows larger without
 * saying so stops being read there.
 */
export const limitJsonBodies = (shape: ErrorShape, maxBytes: number, settingName: string) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
      const declared = Number(request.headers["content-length"] ?? Number.NaN)
      if (!STREAMED.has(type) && declared > maxBytes) {
        return HttpServerResponse.unsafeJson(
          shape.body(
            400,
            "badRequest",
            `The request body has ${declared} bytes, more than the ${maxBytes} a request may send (${settingName})`
          ),
          { status: 400 }
        )
      }
      return yield* HttpServerRequest.withMaxBodySize(app, Option.some(maxBytes))
    })
  )

/** Longest quoted value a refusal repeats. */
const QUOTED_AT_MOST = 80

/** Every quoted string of more than QUOTED_AT_MOST characters in `text`, cut with its length told. */
export const abridgeQuotedValues = (text: string) =>
  text.length <= QUOTED_AT_MOST
    ? text
    : text.replace(
      new RegExp(`"((?:[^"\\\\]|\\\\.){${QUOTED_AT_MOST}})(?:[^"\\\\]|\\\\.)+"`, "g"),
      (whole, start: string) => `"${start}…" (${whole.length - 2} characters)`
    )

/** A contract-mismatch error whose messages quote refused values briefly. */
export const abridgedDecodeError = (error: HttpApiError.HttpApiDecodeError) =>
  new HttpApiError.HttpApiDecodeError({
    message: abridgeQuotedValues(error.message),
    issues: error.issues.map((issue) => ({ ...issue, message: abridgeQuotedValues(issue.message) }))
  })
