/**
 * The pages of a document being redacted and the decoded bytes of their content streams, and
 * rewritten content stored back deflated.
 */
import { Effect } from "effect"
import { deflateSync } from "node:zlib"
import {
  decodePDFRawStream,
  PDFArray,
  type PDFDict,
  type PDFDocument,
  PDFName,
  type PDFPageLeaf,
  PDFRawStream,
  PDFStream
} from "pdf-lib"
import { concat, latin1 } from "./ContentBytes.ts"
import { RedactionFailed } from "./RedactionRequest.ts"

export const pageList = (doc: PDFDocument) =>
  Effect.try({
    try: () => doc.getPages(),
    catch: (error) =>
      new RedactionFailed({
        message: `The PDF's page tree cannot be read: ${error instanceof Error ? error.message : String(error)}`
      })
  })

/** A page's content streams, decoded and joined as one. */
export const pageContent = (page: PDFPageLeaf): Uint8Array => {
  const contents = page.Contents()
  const streams = contents instanceof PDFArray
    ? contents.asArray().map((item) => page.context.lookup(item))
    : [contents]
  return concat(streams.flatMap((stream) => stream instanceof PDFStream ? [streamBytes(stream), latin1("\n")] : []))
}

export const streamBytes = (stream: PDFStream): Uint8Array =>
  stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents()

/** A stream of `bytes` deflated, with `dict` (whose old length and filters go) as its dictionary. */
export const flateStream = (dict: PDFDict, bytes: Uint8Array): PDFRawStream => {
  for (const key of ["Length", "Filter", "DecodeParms", "DL"]) dict.delete(PDFName.of(key))
  dict.set(PDFName.of("Filter"), PDFName.of("FlateDecode"))
  return PDFRawStream.of(dict, deflateSync(bytes))
}
