/**
 * Plain HTTP calls against the broker under test, as any client would make them.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { CORPUS } from "./backends.ts"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly contentType: string
  readonly bytes: Buffer
  readonly text: string
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: any
}

export const call = (url: string, init?: RequestInit) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(url, init)
    const bytes = Buffer.from(await response.arrayBuffer())
    const text = bytes.toString("utf8")
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return {
      status: response.status,
      headers: response.headers,
      contentType: response.headers.get("content-type") ?? "",
      bytes,
      text,
      json
    }
  })

export const corpusFile = (relative: string) => readFileSync(`${CORPUS}${relative}`)

export const upload = (base: string, body: Uint8Array, query = "", contentType = "application/octet-stream") =>
  call(`${base}/documents${query}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body: body as Uint8Array<ArrayBuffer>
  })

/** Uploads and answers the new document's ID, failing the test on any other outcome. */
export const uploadOk = (base: string, body: Uint8Array, query = "") =>
  upload(base, body, query).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`upload failed with ${reply.status}: ${reply.text}`)
      return reply.json.id as string
    })
  )

/** Width and height from a PNG's IHDR chunk, after checking that it is a PNG. */
export const pngSize = (bytes: Uint8Array) => {
  expect(Array.from(bytes.subarray(0, 8))).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  expect(Buffer.from(bytes.subarray(12, 16)).toString("latin1")).toBe("IHDR")
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: view.getUint32(16), height: view.getUint32(20) }
}
