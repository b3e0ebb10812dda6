/**
 * Files over HTTP: whole files with their type and name, and single byte ranges (206/416).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { create as createContentDisposition } from "content-disposition"
import { Effect } from "effect"
import { InvalidRequest, RangeNotSatisfiable } from "../../schemas/broker/Document.ts"
import type { FileContent } from "../../services/broker/documents/DocumentFiles.ts"
import type { ByteRange } from "../../services/common/BlobStore.ts"

/** `filename` in ASCII, and `filename*` (RFC 8187) as well when the name is not ASCII. */
const disposition = (kind: "inline" | "attachment", fileName: string) =>
  createContentDisposition(fileName, { type: kind })

export const fileResponse = (content: FileContent, kind: "inline" | "attachment" = "attachment") =>
  HttpServerResponse.stream(content.read(), {
    contentType: content.contentType,
    contentLength: content.size,
    // No accept-ranges: ranges are served by /file/chunk, not here.
    headers: { "content-disposition": disposition(kind, content.fileName) }
  })

/**
 * Reads one range of a `Range` header against a file of `size` bytes: `bytes=x-y`, `bytes=x-` or the
 * suffix form `bytes=-n`. The end is clamped to the last byte; a start past the end is 416.
 */
export const parseRange = (
  header: string | undefined,
  size: number
): Effect.Effect<ByteRange, InvalidRequest | RangeNotSatisfiable> => {
  if (header === undefined || header.trim() === "") {
    return Effect.fail(new InvalidRequest({ message: "A Range header of the form bytes=x-y is required" }))
  }
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (!match || (match[1] === "" && match[2] === "")) {
    return Effect.fail(
      new InvalidRequest({ message: `The Range header must be one range of the form bytes=x-y, got '${header}'` })
    )
  }
  const unsatisfiable = new RangeNotSatisfiable({
    size,
    message: `The range '${header}' does not overlap the ${size} bytes of the file`
  })
  if (match[1] === "") {
    const suffix = Number(match[2])
    return suffix === 0 || size === 0
      ? Effect.fail(unsatisfiable)
      : Effect.succeed({ start: Math.max(0, size - suffix), end: size - 1 })
  }
  const start = Number(match[1])
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1)
  return start >= size || start > end ? Effect.fail(unsatisfiable) : Effect.succeed({ start, end })
}

export const rangeResponse = (content: FileContent, range: ByteRange) =>
  HttpServerResponse.stream(content.read(range), {
    status: 206,
    contentType: content.contentType,
    contentLength: range.end - range.start + 1,
    headers: {
      "content-range": `bytes ${range.start}-${range.end}/${content.size}`,
      "accept-ranges": "bytes",
      "content-disposition": disposition("attachment", content.fileName)
    }
  })
