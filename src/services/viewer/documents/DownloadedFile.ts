/**
 * A file the viewer passes on from a broker: its bytes and type as the broker answered, and a
 * Content-Disposition naming it (the broker's name, or one the servlet chose).
 */
import type { HttpClientResponse } from "@effect/platform"
import { create as createDisposition, parse as parseDisposition } from "content-disposition"

export interface DownloadedFile {
  readonly bytes: Uint8Array
  readonly contentType: string
  readonly disposition: string
}

/** The file name a broker's answer gives (its Content-Disposition), else `fallback`. */
export const brokerFileName = (response: HttpClientResponse.HttpClientResponse, fallback: string) => {
  const header = response.headers["content-disposition"]
  if (header === undefined) return fallback
  try {
    const { parameters } = parseDisposition(header)
    return parameters["filename*"] ?? parameters.filename ?? fallback
  } catch {
    return fallback
  }
}

/** The broker's answer as a file named `fileName` (the broker's own name when not given). */
export const downloadedFile = (
  bytes: Uint8Array,
  response: HttpClientResponse.HttpClientResponse,
  fileName: string = brokerFileName(response, "document")
): DownloadedFile => ({
  bytes,
  contentType: response.headers["content-type"] ?? "application/octet-stream",
  disposition: createDisposition(fileName, { type: "attachment" })
})
