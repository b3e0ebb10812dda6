/**
 * The fallback when MuPDF cannot redact a page because of an inline image: every inline image in the
 * content of the region pages, and of the forms they draw, becomes an image XObject, drawn the same.
 * The input must be unencrypted (mutool's "decrypt" mode writes it so).
 */
import { Effect } from "effect"
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFName,
  type PDFObject,
  PDFObjectParser,
  PDFRawStream,
  type PDFRef,
  PDFStream
} from "pdf-lib"
import { concat, latin1 } from "./ContentBytes.ts"
import { ContentParser } from "./ContentParser.ts"
import { flateStream, pageContent, pageList, streamBytes } from "./PageContent.ts"
import { RedactionFailed, type RedactionRegion } from "./RedactionRequest.ts"
import { Resources } from "./Resources.ts"

/** The PDF with the inline images of the region pages made XObjects. */
export const inlineImagesToXObjects = (
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>
): Effect.Effect<Uint8Array, RedactionFailed> =>
  Effect.gen(function*() {
    const doc = yield* Effect.tryPromise({
      try: () => PDFDocument.load(pdf, { updateMetadata: false }),
      catch: (error) => new RedactionFailed({ message: `The PDF cannot be read: ${String(error)}` })
    })
    const pages = yield* pageList(doc)
    const ctx = doc.context
    const seen = new Set<PDFRef>()
    /** Rewrites one content stream; the forms its resources name are visited too. */
    const convert = (data: Uint8Array, resources: Resources): Uint8Array | undefined => {
      for (const ref of resources.xobjectRefs()) {
        const form = ctx.lookup(ref)
        if (
          seen.has(ref) || !(form instanceof PDFStream) || form.dict.get(PDFName.of("Subtype")) !== PDFName.of("Form")
        ) continue
        seen.add(ref)
        const formResources = new Resources(ctx, form.dict.lookupMaybe(PDFName.of("Resources"), PDFDict))
        const converted = convert(streamBytes(form), formResources)
        if (converted === undefined) continue
        const dict = form.dict.clone()
        const modified = formResources.modified()
        if (modified !== undefined) dict.set(PDFName.of("Resources"), modified)
        ctx.assign(ref, flateStream(dict, converted))
      }
      const parser = new ContentParser(data)
      const pieces: Array<Uint8Array | string> = []
      let cursor = 0
      for (let op = parser.next(); op !== undefined; op = parser.next()) {
        if (op.inline === undefined) continue
        const image = PDFRawStream.of(
          inlineImageDict(ctx, data.subarray(...op.inline.dict), resources),
          data.slice(...op.inline.data)
        )
        pieces.push(data.subarray(cursor, op.start), `/${resources.addXObject(ctx.register(image))} Do`)
        cursor = op.end
      }
      return pieces.length === 0
        ? undefined
        : concat([...pieces, data.subarray(cursor)].map((p) => typeof p === "string" ? latin1(p) : p))
    }
    yield* Effect.try({
      try: () => {
        for (const index of new Set(regions.map((r) => r.page))) {
          const page = pages[index]!.node
          const resources = new Resources(ctx, page.Resources())
          const converted = convert(pageContent(page), resources)
          if (converted !== undefined) {
            page.set(PDFName.of("Contents"), ctx.register(flateStream(PDFDict.withContext(ctx), converted)))
          }
          const modified = resources.modified()
          if (modified !== undefined) {
            page.set(PDFName.of("Resources"), modified)
          }
        }
      },
      catch: (error) =>
        new RedactionFailed({
          message: `The inline images cannot be converted: ${error instanceof Error ? error.message : String(error)}`
        })
    })
    return yield* Effect.tryPromise({
      try: () => doc.save({ addDefaultPage: false, updateFieldAppearances: false }),
      catch: (error) => new RedactionFailed({ message: `The PDF cannot be written: ${String(error)}` })
    })
  })

const INLINE_KEYS: Readonly<Record<string, string>> = {
  BPC: "BitsPerComponent",
  CS: "ColorSpace",
  D: "Decode",
  DP: "DecodeParms",
  F: "Filter",
  H: "Height",
  IM: "ImageMask",
  I: "Interpolate",
  W: "Width"
}
const INLINE_NAMES: Readonly<Record<string, string>> = {
  G: "DeviceGray",
  RGB: "DeviceRGB",
  CMYK: "DeviceCMYK",
  I: "Indexed",
  AHx: "ASCIIHexDecode",
  A85: "ASCII85Decode",
  LZW: "LZWDecode",
  Fl: "FlateDecode",
  RL: "RunLengthDecode",
  CCF: "CCITTFaxDecode",
  DCT: "DCTDecode"
}

/** An inline image's dictionary spelled out for an XObject: full keys and names, named colour spaces looked up. */
const inlineImageDict = (ctx: PDFContext, entries: Uint8Array, resources: Resources): PDFDict => {
  const inline = PDFObjectParser.forBytes(concat([latin1("<<"), entries, latin1(">>")]), ctx).parseObject()
  const dict = ctx.obj({ Type: "XObject", Subtype: "Image" })
  for (const [key, value] of inline instanceof PDFDict ? inline.entries() : []) {
    const full = INLINE_KEYS[key.decodeText()] ?? key.decodeText()
    if (full === "L" || full === "Length") continue
    const spelled = (v: PDFObject): PDFObject => {
      if (!(v instanceof PDFName) || (full !== "ColorSpace" && full !== "Filter")) return v
      const long = INLINE_NAMES[v.decodeText()]
      if (long !== undefined) return PDFName.of(long)
      return full === "ColorSpace" ? resources.lookup("ColorSpace", v.decodeText()) ?? v : v
    }
    dict.set(PDFName.of(full), value instanceof PDFArray ? ctx.obj(value.asArray().map(spelled)) : spelled(value))
  }
  return dict
}
