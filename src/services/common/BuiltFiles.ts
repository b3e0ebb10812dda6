/**
 * Files the build writes (web/dist: the browser viewer, the gateway's web components), read once
 * per change on disk rather than per request, each with an ETag of its bytes.
 */
import { createHash } from "node:crypto"
import { readFile, stat } from "node:fs/promises"

export interface BuiltFile {
  readonly mtimeMs: number
  readonly body: Uint8Array
  readonly etag: string
}

/** The types of what the build writes, by extension. */
export const BUILT_FILE_TYPES: Readonly<Record<string, string>> = {
  js: "text/javascript; charset=utf-8",
  map: "application/json",
  txt: "text/plain; charset=utf-8",
  css: "text/css; charset=utf-8"
}

const read = new Map<string, BuiltFile>()

/** The file at `path`, through `transform` (applied once per change); rejects when it is missing. */
export const readBuiltFile = async (path: string, transform: (bytes: Buffer) => Uint8Array = (bytes) => bytes) => {
  const { mtimeMs } = await stat(path)
  const known = read.get(path)
  if (known?.mtimeMs === mtimeMs) return known
  const body = transform(await readFile(path))
  const fresh = { mtimeMs, body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` }
  read.set(path, fresh)
  return fresh
}
