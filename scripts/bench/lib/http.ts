/**
 * Timed requests to the broker with plain fetch. Every answer is checked (status, type, PNG
 * width), so an error page can never be counted as a fast render.
 */

const REQUEST_TIMEOUT_MS = 120_000

export interface Timed<A> {
  readonly value: A
  /** From the start of the request to the last byte of the body. */
  readonly ms: number
  /** performance.now() when the body was complete. */
  readonly endedAt: number
}

const check = async (response: Response, what: string) => {
  if (!response.ok) {
    const body = await response.text().catch(() => "")
    throw new Error(`${what} answered ${response.status}: ${body.slice(0, 300)}`)
  }
}

export const pngWidth = (bytes: Uint8Array) => {
  const signature = [0x89, 0x50, 0x4e, 0x47]
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return undefined
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(16)
}

export const upload = async (
  baseUrl: string,
  body: Uint8Array<ArrayBuffer>,
  params: Record<string, string>
): Promise<Timed<string>> => {
  const started = performance.now()
  const response = await fetch(`${baseUrl}/documents?${new URLSearchParams(params)}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  })
  await check(response, "POST /documents")
  const { id } = (await response.json()) as { id: string }
  const endedAt = performance.now()
  return { value: id, ms: endedAt - started, endedAt }
}

export const getJson = async <A>(baseUrl: string, path: string): Promise<Timed<A>> => {
  const started = performance.now()
  const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  await check(response, `GET ${path}`)
  const value = (await response.json()) as A
  const endedAt = performance.now()
  return { value, ms: endedAt - started, endedAt }
}

/** GET a page image; checks it is a PNG of the expected width. The value is its size in bytes. */
export const getPageImage = async (
  baseUrl: string,
  documentId: string,
  page: number,
  descriptor: string,
  expectedWidth: number
): Promise<Timed<number>> => {
  const path = `/documents/${encodeURIComponent(documentId)}/pages/${page}/image?pageImageDescription=${
    encodeURIComponent(descriptor)
  }`
  const started = performance.now()
  const response = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  await check(response, `GET ${path}`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  const endedAt = performance.now()
  const type = response.headers.get("content-type") ?? ""
  const width = pngWidth(bytes)
  if (!type.startsWith("image/png") || width !== expectedWidth) {
    throw new Error(`GET ${path} gave ${type} width ${width ?? "?"}, expected a PNG ${expectedWidth} px wide`)
  }
  return { value: bytes.byteLength, ms: endedAt - started, endedAt }
}

export interface PageTextResult {
  readonly pageNumber: number
  readonly positionTextList: ReadonlyArray<{ readonly text: string }>
}

export interface LayoutResult {
  readonly pageDimensionsList: ReadonlyArray<{ readonly width: number; readonly height: number }>
}
