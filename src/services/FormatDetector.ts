/**
 * Recognises a file by its first bytes, never by a name or a client's claim.
 */
export interface DetectedFormat {
  /** Short name used in the API's `format` fields. */
  readonly format: string
  readonly mimeType: string
  readonly kind: "pdf" | "image"
}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, offset = 0) =>
  signature.every((b, i) => bytes[offset + i] === b)

const ascii = (text: string) => Array.from(text, (c) => c.charCodeAt(0))

/** Looks at up to the first kilobyte; `undefined` means not a format this broker renders. */
export const detectFormat = (head: Uint8Array): DetectedFormat | undefined => {
  // PDF readers accept the header anywhere in the first 1024 bytes, so do we.
  const text = new TextDecoder("latin1").decode(head.subarray(0, 1024))
  if (text.includes("%PDF-")) return { format: "pdf", mimeType: "application/pdf", kind: "pdf" }
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { format: "png", mimeType: "image/png", kind: "image" }
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { format: "jpeg", mimeType: "image/jpeg", kind: "image" }
  if (startsWith(head, ascii("GIF87a")) || startsWith(head, ascii("GIF89a"))) return { format: "gif", mimeType: "image/gif", kind: "image" }
  if (startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBP"), 8)) return { format: "webp", mimeType: "image/webp", kind: "image" }
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a])) return { format: "tiff", mimeType: "image/tiff", kind: "image" }
  if (startsWith(head, ascii("BM")) && head.length >= 26) return { format: "bmp", mimeType: "image/bmp", kind: "image" }
  return undefined
}
