/**
 * Plain HTTP calls against the broker under test, as any client would make them.
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { CORPUS } from "./backends.ts"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly bytes: Uint8Array
  readonly text: string
  /** The body parsed as JSON; undefined when it is not JSON. */
  readonly json: any
}

export const call = (url: string, init?: RequestInit) =>
  Effect.promise(async (): Promise<Reply> => {
    const response = await fetch(url, init)
    const bytes = new Uint8Array(await response.arrayBuffer())
    const text = new TextDecoder().decode(bytes)
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: response.status, headers: response.headers, bytes, text, json }
  })

export const corpusFile = (relative: string) => readFileSync(`${CORPUS}${relative}`)

export const upload = (base: string, body: Uint8Array, query = "", contentType = "application/octet-stream") =>
  call(`${base}/documents${query}`, { method: "POST", headers: { "content-type": contentType }, body: body as Uint8Array<ArrayBuffer> })

/** Uploads and answers the new document's ID, failing the test on any other outcome. */
export const uploadOk = (base: string, body: Uint8Array, query = "") =>
  upload(base, body, query).pipe(
    Effect.map((reply) => {
      if (reply.status !== 200) throw new Error(`upload failed with ${reply.status}: ${reply.text}`)
      return reply.json.id as string
    })
  )

/** Width and height from a PNG's IHDR chunk. */
export const pngSize = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG")
  return { width: view.getUint32(16), height: view.getUint32(20) }
}
