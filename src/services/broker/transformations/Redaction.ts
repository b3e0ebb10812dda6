/**
 * Redaction that removes content from the file, not a box drawn over it. Two passes:
 *
 * 1. MuPDF (`mutool run`) removes the glyphs under each region and replaces the covered pixels of
 *    images (and of their soft masks), copying forms and images other pages still use.
 * 2. `scrubDocument` goes over the redacted pages' content streams (and the forms they draw): MuPDF 1.21
 *    keeps line art and shadings, so painted paths are cut at the regions (fills exactly, strokes
 *    where the stroke would reach in), shadings are dropped or clipped out, and replacement text
 *    (/ActualText, /Alt, /E) of marked content touching a region is deleted, in the content and in
 *    the structure tree. Annotations over a region go (a removed widget takes its field value along),
 *    the fill boxes are drawn, and every object nothing refers to any more (the unredacted originals)
 *    is dropped.
 *
 * Regions are in PDF user space of the unrotated page; the mutool script maps them to MuPDF's page
 * space (top left of the crop box, rotated, y down) with the page's own transform.
 */
import { Command, FileSystem, Path } from "@effect/platform"
import { Duration, Effect, Schema, Stream } from "effect"
import { deflateSync } from "node:zlib"
import {
  decodePDFRawStream,
  PDFArray,
  PDFBool,
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFObjectParser,
  type PDFPageLeaf,
  PDFRawStream,
  PDFRef,
  PDFStream
} from "pdf-lib"
import { apply, concat as concatMatrices, invert, type Matrix, type Point } from "../engine/Matrix.ts"

/** A region to redact: 0-based page index and a rectangle in PDF user space [x1, y1, x2, y2] (points, origin bottom-left of the unrotated page, y up, x1<=x2, y1<=y2). */
export interface RedactionRegion {
  readonly page: number
  readonly rect: readonly [number, number, number, number]
}

export interface RedactionSettings {
  /** RGB 0-1 of the box drawn where content was removed (default black [0,0,0]); null draws nothing. */
  readonly fill?: readonly [number, number, number] | null
  /** Longest the work may take (default 120 s). */
  readonly timeoutMs?: number
}

/** The PDF cannot be redacted as asked (unreadable or protected file, bad region, timeout); `message` says which. */
export class RedactionFailed extends Schema.TaggedError<RedactionFailed>()(
  "RedactionFailed",
  { message: Schema.String }
) {}

type Fill = readonly [number, number, number] | null

/** The PDF with every region's content removed for real. Pages without regions are left as they are. */
export const redact = Effect.fn("Redaction.redact")(function*(
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>,
  settings: RedactionSettings = {}
) {
  if (regions.length === 0) {
    yield* validate(regions, fillOf(settings))
    return pdf
  }
  const doc = yield* redactedDocument(pdf, regions, settings)
  return yield* Effect.tryPromise({
    try: () => doc.save({ addDefaultPage: false, updateFieldAppearances: false }),
    catch: (error) => new RedactionFailed({ message: `The redacted PDF cannot be written: ${String(error)}` })
  })
})

const fillOf = (settings: RedactionSettings): Fill => (settings.fill === undefined ? [0, 0, 0] : settings.fill)

/**
 * As `redact`, the result left loaded: for a caller that takes pages from it (a transformation),
 * which would otherwise parse again what was just written.
 */
export const redactedDocument = Effect.fn("Redaction.redactedDocument")(function*(
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>,
  settings: RedactionSettings = {}
) {
  const fill = fillOf(settings)
  yield* validate(regions, fill)
  const timeout = Duration.millis(settings.timeoutMs ?? 120_000)
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  return yield* Effect.scoped(
    Effect.gen(function*() {
      const work = yield* fs.makeTempDirectoryScoped({ prefix: "docstack-redact-" }).pipe(Effect.orDie)
      const file = (name: string) => path.join(work, name)
      yield* Effect.all([
        fs.writeFile(file("input.pdf"), pdf),
        fs.writeFileString(file("redact.js"), MUTOOL_SCRIPT),
        fs.writeFileString(file("regions.json"), JSON.stringify(regions))
      ]).pipe(Effect.orDie)
      const mutool = (input: string, output: string, mode: "redact" | "decrypt") =>
        Command.start(Command.make("mutool", "run", file("redact.js"), file(input), file(output), file("regions.json"), mode)).pipe(
          Effect.flatMap((process) =>
            Effect.all([process.exitCode, process.stderr.pipe(Stream.decodeText(), Stream.mkString)], { concurrency: 2 })
          ),
          Effect.catchTag("SystemError", "BadArgument", (e) => Effect.fail(new RedactionFailed({ message: `mutool could not be started: ${e.message}` }))),
          Effect.flatMap(([exitCode, stderr]) =>
            exitCode === 0 ? Effect.void : Effect.fail(new RedactionFailed({ message: mutoolFailure(stderr, exitCode) }))
          )
        )
      yield* mutool("input.pdf", "output.pdf", "redact").pipe(
        Effect.catchIf((e) => e.message.includes(INLINE_IMAGE_FAILURE), () =>
          Effect.gen(function*() {
            yield* mutool("input.pdf", "plain.pdf", "decrypt")
            const plain = yield* fs.readFile(file("plain.pdf")).pipe(Effect.orDie)
            yield* fs.writeFile(file("converted.pdf"), yield* inlineImagesToXObjects(plain, regions)).pipe(Effect.orDie)
            yield* mutool("converted.pdf", "output.pdf", "redact")
          }))
      )
      const redacted = yield* fs.readFile(file("output.pdf")).pipe(Effect.orDie)
      return yield* scrubDocument(redacted, regions, fill)
    })
  ).pipe(
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () => new RedactionFailed({ message: `The redaction took longer than ${Duration.format(timeout)} and was stopped` })
    })
  )
})

const validate = (regions: ReadonlyArray<RedactionRegion>, fill: Fill) =>
  Effect.gen(function*() {
    if (fill !== null && !fill.every((c) => Number.isFinite(c) && c >= 0 && c <= 1)) {
      return yield* new RedactionFailed({ message: `The fill colour must be three numbers from 0 to 1, not [${fill.join(", ")}]` })
    }
    for (const { page, rect } of regions) {
      if (!Number.isInteger(page) || page < 0) return yield* new RedactionFailed({ message: `A region's page must be a page index from 0, not ${page}` })
      const [x1, y1, x2, y2] = rect
      if ((rect as ReadonlyArray<number>).length !== 4 || !rect.every(Number.isFinite) || x1 > x2 || y1 > y2) {
        return yield* new RedactionFailed({ message: `A region on page ${page + 1} must be [x1, y1, x2, y2] with x1 <= x2 and y1 <= y2, not [${rect.join(", ")}]` })
      }
    }
  })

/**
 * The script's own refusals come as "Error: REDACTION: …"; any other "Error:" is the exception that
 * stopped MuPDF (its "error:" lines before are often warnings it recovered from).
 */
const mutoolFailure = (stderr: string, exitCode: number): string => {
  const own = /Error: REDACTION: (.*)/.exec(stderr)?.[1]
  if (own !== undefined) return own
  const reason = /^Error: (.*)$/m.exec(stderr)?.[1] ?? [...stderr.matchAll(/^error: (.*)$/gm)].pop()?.[1]
  return `The PDF cannot be read: ${reason ?? `mutool exited with code ${exitCode}`}`
}

/**
 * mutool's JavaScript (MuJS, ES5); the last argument is "redact", or "decrypt" to only write the file
 * back decrypted. Redact marks already on a page would be applied along with the regions, so they are
 * deleted first: the regions are the whole request. applyRedactions(blackBoxes, imageMethod): no boxes
 * (scrubDocument draws them in the asked colour), image method 2 replaces only the covered pixels. Saved
 * "decrypt" so pdf-lib can read it, "compress" so rewritten images are not stored raw.
 */
const MUTOOL_SCRIPT = String.raw`
var input = scriptArgs[0], output = scriptArgs[1], regions = JSON.parse(read(scriptArgs[2])), mode = scriptArgs[3];
function refuse(message) { throw new Error("REDACTION: " + message); }
var doc;
try { doc = new PDFDocument(input); doc.countPages(); } catch (e) { refuse("The file is not a readable PDF: " + e.message); }
if (doc.needsPassword()) refuse("The PDF is password-protected and cannot be redacted");
var pages = doc.countPages(), byPage = {};
if (pages === 0) refuse("The file is not a readable PDF: no pages were found");
regions.forEach(function (r) {
  if (r.page >= pages) refuse("Page " + (r.page + 1) + " does not exist: the document has " + pages + " page" + (pages === 1 ? "" : "s"));
  (byPage[r.page] = byPage[r.page] || []).push(r.rect);
});
if (mode === "redact") Object.keys(byPage).forEach(function (index) {
  var page = doc.loadPage(Number(index)), m = page.getTransform();
  page.getAnnotations().forEach(function (a) { if (a.getType() === "Redact") page.deleteAnnotation(a); });
  byPage[index].forEach(function (rect) {
    var xs = [], ys = [];
    [[rect[0], rect[1]], [rect[2], rect[3]], [rect[0], rect[3]], [rect[2], rect[1]]].forEach(function (p) {
      xs.push(m[0] * p[0] + m[2] * p[1] + m[4]);
      ys.push(m[1] * p[0] + m[3] * p[1] + m[5]);
    });
    page.createAnnotation("Redact").setRect([Math.min.apply(null, xs), Math.min.apply(null, ys), Math.max.apply(null, xs), Math.max.apply(null, ys)]);
  });
  try { page.applyRedactions(false, 2); } catch (e) { refuse("Page " + (Number(index) + 1) + " cannot be redacted: " + e.message); }
});
doc.save(output, "decrypt,compress");
`

/** How MuPDF 1.21 fails on an inline image whose colour space is an array (an indexed palette): it cannot write it back. */
const INLINE_IMAGE_FAILURE = "BI operator can only show"

// ---- the pass over the redacted pages ----------------------------------------------------------

/**
 * After MuPDF: removes what MuPDF keeps under the regions (line art, shadings, replacement text,
 * annotations), draws the fill boxes and drops unreferenced objects. Pure CPU work with no platform
 * service, so it can run on a worker thread.
 */
const scrubDocument = (
  pdf: Uint8Array,
  regions: ReadonlyArray<RedactionRegion>,
  fill: Fill
): Effect.Effect<PDFDocument, RedactionFailed> =>
  Effect.gen(function*() {
    const doc = yield* Effect.tryPromise({
      try: () => PDFDocument.load(pdf, { updateMetadata: false }),
      catch: (error) => new RedactionFailed({ message: `The redacted PDF cannot be read back: ${String(error)}` })
    })
    if (doc.catalog.get(PDFName.of("NeedsRendering")) === PDFBool.True) {
      return yield* new RedactionFailed({ message: "The PDF is a dynamic XFA form: its pages are drawn from the form's data, which regions on pages cannot redact" })
    }
    const pages = yield* pageList(doc)
    const byPage = new Map<number, Array<Box>>()
    for (const { page, rect } of regions) byPage.set(page, [...(byPage.get(page) ?? []), rect])
    const affectedContent = new Map<PDFRef, Set<number>>()
    // One page per step, so a timeout or an interruption can stop the work between pages.
    yield* Effect.forEach(byPage, ([index, boxes]) =>
      Effect.try({
        try: () => {
          const page = pages[index]!
          affectedContent.set(page.ref, scrubPage(doc.context, page.node, boxes, fill))
          removeAnnotations(doc, page.node, boxes)
        },
        catch: (error) => new RedactionFailed({ message: `Page ${index + 1} cannot be redacted: ${error instanceof Error ? error.message : String(error)}` })
      }), { discard: true })
    const structTree = doc.catalog.lookupMaybe(PDFName.of("StructTreeRoot"), PDFDict)
    if (structTree !== undefined && [...affectedContent.values()].some((ids) => ids.size > 0)) stripStructureText(doc.context, structTree, affectedContent)
    // XFA data repeats field values outside the pages; MuPDF and pdf.js show the AcroForm anyway.
    doc.catalog.lookupMaybe(PDFName.of("AcroForm"), PDFDict)?.delete(PDFName.of("XFA"))
    dropUnreferenced(doc.context)
    return doc
  })

const pageList = (doc: PDFDocument) =>
  Effect.try({
    try: () => doc.getPages(),
    catch: (error) => new RedactionFailed({ message: `The PDF's page tree cannot be read: ${error instanceof Error ? error.message : String(error)}` })
  })

/**
 * The fallback when MuPDF cannot redact a page because of an inline image: every inline image in the
 * content of the region pages, and of the forms they draw, becomes an image XObject, drawn the same.
 * The input must be unencrypted (mutool's "decrypt" mode writes it so).
 */
const inlineImagesToXObjects = (pdf: Uint8Array, regions: ReadonlyArray<RedactionRegion>): Effect.Effect<Uint8Array, RedactionFailed> =>
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
        if (seen.has(ref) || !(form instanceof PDFStream) || form.dict.get(PDFName.of("Subtype")) !== PDFName.of("Form")) continue
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
        const image = PDFRawStream.of(inlineImageDict(ctx, data.subarray(...op.inline.dict), resources), data.slice(...op.inline.data))
        pieces.push(data.subarray(cursor, op.start), `/${resources.addXObject(ctx.register(image))} Do`)
        cursor = op.end
      }
      return pieces.length === 0 ? undefined : concat([...pieces, data.subarray(cursor)].map((p) => typeof p === "string" ? latin1(p) : p))
    }
    yield* Effect.try({
      try: () => {
        for (const index of new Set(regions.map((r) => r.page))) {
          const page = pages[index]!.node
          const resources = new Resources(ctx, page.Resources())
          const converted = convert(pageContent(page), resources)
          if (converted !== undefined) page.set(PDFName.of("Contents"), ctx.register(flateStream(PDFDict.withContext(ctx), converted)))
          const modified = resources.modified()
          if (modified !== undefined) page.set(PDFName.of("Resources"), modified)
        }
      },
      catch: (error) => new RedactionFailed({ message: `The inline images cannot be converted: ${error instanceof Error ? error.message : String(error)}` })
    })
    return yield* Effect.tryPromise({
      try: () => doc.save({ addDefaultPage: false, updateFieldAppearances: false }),
      catch: (error) => new RedactionFailed({ message: `The PDF cannot be written: ${String(error)}` })
    })
  })

const INLINE_KEYS: Readonly<Record<string, string>> = {
  BPC: "BitsPerComponent", CS: "ColorSpace", D: "Decode", DP: "DecodeParms", F: "Filter", H: "Height", IM: "ImageMask", I: "Interpolate", W: "Width"
}
const INLINE_NAMES: Readonly<Record<string, string>> = {
  G: "DeviceGray", RGB: "DeviceRGB", CMYK: "DeviceCMYK", I: "Indexed",
  AHx: "ASCIIHexDecode", A85: "ASCII85Decode", LZW: "LZWDecode", Fl: "FlateDecode", RL: "RunLengthDecode", CCF: "CCITTFaxDecode", DCT: "DCTDecode"
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

type Box = readonly [number, number, number, number]

/** Rewrites a page's content into one stream; returns the marked-content IDs whose replacement text must go. */
const scrubPage = (ctx: PDFContext, page: PDFPageLeaf, regions: ReadonlyArray<Box>, fill: Fill): Set<number> => {
  const resources = new Resources(ctx, page.Resources())
  const result = new Scrubber(ctx, regions, 0, pageContent(page), resources).run(INITIAL_STATE)
  // The page's own content is wrapped so that the boxes are drawn in the page's default space.
  const boxes = fill === null
    ? ""
    : `q ${fill.map(num).join(" ")} rg ${regions.map(([x1, y1, x2, y2]) => `${point([x1, y1])} ${num(x2 - x1)} ${num(y2 - y1)} re`).join(" ")} f Q\n`
  const content = concat([latin1("q\n"), result.bytes, latin1(`\n${"Q\n".repeat(result.openStates + 1)}${boxes}`)])
  page.set(PDFName.of("Contents"), ctx.register(flateStream(PDFDict.withContext(ctx), content)))
  const modified = resources.modified()
  if (modified !== undefined) page.set(PDFName.of("Resources"), modified)
  // Thumbnails and application data (Illustrator keeps the whole original artwork there) show what was removed.
  page.delete(PDFName.of("Thumb"))
  page.delete(PDFName.of("PieceInfo"))
  return result.affectedMcids
}

const pageContent = (page: PDFPageLeaf): Uint8Array => {
  const contents = page.Contents()
  const streams = contents instanceof PDFArray ? contents.asArray().map((item) => page.context.lookup(item)) : [contents]
  return concat(streams.flatMap((stream) => stream instanceof PDFStream ? [streamBytes(stream), latin1("\n")] : []))
}

const streamBytes = (stream: PDFStream): Uint8Array => stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : stream.getContents()

const flateStream = (dict: PDFDict, bytes: Uint8Array): PDFRawStream => {
  for (const key of ["Length", "Filter", "DecodeParms", "DL"]) dict.delete(PDFName.of(key))
  dict.set(PDFName.of("Filter"), PDFName.of("FlateDecode"))
  return PDFRawStream.of(dict, deflateSync(bytes))
}

/**
 * A resource dictionary that is copied before it changes (the original may be shared with other
 * pages). Names whose drawing was removed leave the copy unless something still draws them: an
 * entry nothing draws would still carry the content into the file.
 */
class Resources {
  private copy: PDFDict | undefined
  private readonly copiedGroups = new Set<string>()
  /** Category → names still drawn, and names whose drawing was removed. */
  private readonly drawn = new Map<string, Set<string>>()
  private readonly removed = new Map<string, Set<string>>()
  constructor(private readonly ctx: PDFContext, private readonly original: PDFDict | undefined) {}

  lookup(category: string, name: string): PDFObject | undefined {
    const group = (this.copy ?? this.original)?.lookupMaybe(PDFName.of(category), PDFDict)
    return group === undefined ? undefined : this.ctx.lookup(group.get(PDFName.of(name)))
  }

  /** Records that the content still draws (`true`) or no longer draws (`false`) a named resource. */
  mark(category: string, name: string, drawn: boolean) {
    const names = drawn ? this.drawn : this.removed
    names.set(category, (names.get(category) ?? new Set()).add(name))
  }

  /** The XObjects named here, by reference. */
  xobjectRefs(): Array<PDFRef> {
    const group = (this.copy ?? this.original)?.lookupMaybe(PDFName.of("XObject"), PDFDict)
    return (group?.values() ?? []).filter((v): v is PDFRef => v instanceof PDFRef)
  }

  /** Adds an XObject under a new name and returns the name. */
  addXObject(object: PDFRef): string {
    const group = this.group("XObject")
    let n = group.keys().length
    while (group.has(PDFName.of(`Rdx${n}`))) n++
    group.set(PDFName.of(`Rdx${n}`), object)
    this.mark("XObject", `Rdx${n}`, true)
    return `Rdx${n}`
  }

  /** The changed copy, if anything changed, once the content using these resources has been scrubbed. */
  modified(): PDFDict | undefined {
    for (const [category, names] of this.removed) {
      for (const name of names) if (this.drawn.get(category)?.has(name) !== true) this.group(category).delete(PDFName.of(name))
    }
    this.removed.clear()
    return this.copy
  }

  private group(category: string): PDFDict {
    this.copy ??= this.original?.clone() ?? PDFDict.withContext(this.ctx)
    const existing = this.copy.lookupMaybe(PDFName.of(category), PDFDict)
    if (existing !== undefined && this.copiedGroups.has(category)) return existing
    const group = existing?.clone() ?? PDFDict.withContext(this.ctx)
    this.copy.set(PDFName.of(category), group)
    this.copiedGroups.add(category)
    return group
  }
}

// ---- content streams -------------------------------------------------------------------------

type Operand =
  | { readonly kind: "number"; readonly value: number; readonly start: number; readonly end: number }
  | { readonly kind: "name"; readonly value: string; readonly start: number; readonly end: number }
  | { readonly kind: "dict"; readonly entries: ReadonlyArray<readonly [string, Operand]>; readonly start: number; readonly end: number }
  | { readonly kind: "other"; readonly start: number; readonly end: number }

interface Operation {
  readonly operator: string
  readonly operands: ReadonlyArray<Operand>
  /** Byte span of the whole operation, operands included. */
  readonly start: number
  readonly end: number
  /** For BI: the spans of its dictionary entries (between BI and ID) and of its data. */
  readonly inline?: { readonly dict: readonly [number, number]; readonly data: readonly [number, number] }
}

const SPACE = new Uint8Array(256)
for (const c of [0, 9, 10, 12, 13, 32]) SPACE[c] = 1
const DELIMITER = new Uint8Array(256)
for (const c of "()<>[]{}/%") DELIMITER[c.charCodeAt(0)] = 1
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)$/

/** Tokenises a content stream into operations, keeping byte spans so untouched parts are copied as they are. */
class ContentParser {
  private pos = 0
  constructor(private readonly data: Uint8Array) {}

  next(): Operation | undefined {
    const operands: Array<Operand> = []
    let start = -1
    for (;;) {
      this.skipSpace()
      if (this.pos >= this.data.length) return undefined
      if (start < 0) start = this.pos
      const token = this.object()
      if (token.kind === "operator") {
        if (token.value !== "BI") return { operator: token.value, operands, start, end: this.pos }
        const inline = this.inlineImage()
        return { operator: token.value, operands, start, end: this.pos, inline }
      }
      operands.push(token)
    }
  }

  private skipSpace() {
    const d = this.data
    while (this.pos < d.length) {
      if (SPACE[d[this.pos]!]) this.pos++
      else if (d[this.pos] === 0x25) while (this.pos < d.length && d[this.pos] !== 0x0a && d[this.pos] !== 0x0d) this.pos++
      else break
    }
  }

  private object(): Operand | { readonly kind: "operator"; readonly value: string } {
    const d = this.data
    const start = this.pos
    const c = d[this.pos]!
    if (c === 0x28) { // ( string )
      let depth = 0
      while (this.pos < d.length) {
        const b = d[this.pos++]!
        if (b === 0x5c) this.pos++
        else if (b === 0x28) depth++
        else if (b === 0x29 && --depth === 0) break
      }
      return { kind: "other", start, end: this.pos }
    }
    if (c === 0x3c && d[this.pos + 1] === 0x3c) { // << dict >>
      this.pos += 2
      const entries: Array<readonly [string, Operand]> = []
      for (;;) {
        this.skipSpace()
        if (this.pos >= d.length) break
        if (d[this.pos] === 0x3e) {
          this.pos += 2
          break
        }
        const key = this.object()
        this.skipSpace()
        const value = this.pos < d.length && d[this.pos] !== 0x3e ? this.object() : undefined
        if (key.kind === "name" && value !== undefined && value.kind !== "operator") entries.push([key.value, value])
      }
      return { kind: "dict", entries, start, end: this.pos }
    }
    if (c === 0x3c) { // <hex>
      while (this.pos < d.length && d[this.pos] !== 0x3e) this.pos++
      this.pos++
      return { kind: "other", start, end: this.pos }
    }
    if (c === 0x5b) { // [ array ]
      this.pos++
      for (;;) {
        this.skipSpace()
        if (this.pos >= d.length) break
        if (d[this.pos] === 0x5d) {
          this.pos++
          break
        }
        this.object()
      }
      return { kind: "other", start, end: this.pos }
    }
    if (c === 0x2f) { // /Name
      this.pos++
      while (this.pos < d.length && !SPACE[d[this.pos]!] && !DELIMITER[d[this.pos]!]) this.pos++
      const raw = latin1Text(d.subarray(start + 1, this.pos))
      return { kind: "name", value: raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), start, end: this.pos }
    }
    if (DELIMITER[c]) { // stray ) > ] { }
      this.pos++
      return { kind: "other", start, end: this.pos }
    }
    // Numbers and operators make up most of a stream: built char by char, cheaper than a Buffer per token.
    let word = ""
    while (this.pos < d.length && !SPACE[d[this.pos]!] && !DELIMITER[d[this.pos]!]) word += String.fromCharCode(d[this.pos++]!)
    if (NUMBER.test(word)) return { kind: "number", value: Number(word), start, end: this.pos }
    if (word === "true" || word === "false" || word === "null") return { kind: "other", start, end: this.pos }
    return { kind: "operator", value: word }
  }

  /** BI <dict> ID <bytes> EI: the data ends at an EI between white space. */
  private inlineImage(): { readonly dict: readonly [number, number]; readonly data: readonly [number, number] } {
    const d = this.data
    const dictStart = this.pos
    let dictEnd = this.pos
    for (;;) {
      this.skipSpace()
      if (this.pos >= d.length) return { dict: [dictStart, this.pos], data: [this.pos, this.pos] }
      dictEnd = this.pos
      const token = this.object()
      if (token.kind === "operator" && token.value === "ID") break
    }
    const dataStart = ++this.pos
    for (let i = dataStart; i + 1 < d.length; i++) {
      if (d[i] === 0x45 && d[i + 1] === 0x49 && SPACE[d[i - 1]!] && (i + 2 >= d.length || SPACE[d[i + 2]!] || DELIMITER[d[i + 2]!])) {
        this.pos = i + 2
        return { dict: [dictStart, dictEnd], data: [dataStart, i - 1] }
      }
    }
    this.pos = d.length
    return { dict: [dictStart, dictEnd], data: [dataStart, d.length] }
  }
}

interface GraphicsState {
  readonly ctm: Matrix
  readonly lineWidth: number
  /** Bounding box of the clip in page space; undefined while unclipped. */
  readonly clip: Box | undefined
}

const INITIAL_STATE: GraphicsState = { ctm: [1, 0, 0, 1, 0, 0], lineWidth: 1, clip: undefined }

interface Segment {
  /** The operation that drew it, or undefined for an edge of `re` or a closing `h`. */
  readonly op: Operation | undefined
  readonly from: Point
  readonly to: Point
  /** The two control points of a curve (`v` and `y` spelled out), none for a line. */
  readonly controls: ReadonlyArray<Point>
  /** Box of the segment and its control points in page space. */
  readonly box: Box
}

interface Subpath {
  readonly ops: Array<Operation>
  readonly start: Point
  readonly segments: Array<Segment>
  /** Box of all points in page space. */
  box: Box
  closed: boolean
}

interface ScrubResult {
  readonly bytes: Uint8Array
  readonly changed: boolean
  /** Whether anything drawn may lie in a region (decides the fate of enclosing replacement text). */
  readonly affected: boolean
  readonly affectedMcids: Set<number>
  /** q without Q at the end of the stream. */
  readonly openStates: number
}

const PATH_OPS = new Set(["m", "l", "c", "v", "y", "h", "re"])
const PAINT_OPS = new Set(["S", "s", "f", "F", "f*", "B", "B*", "b", "b*", "n"])
/** Operators that only set graphics state: tolerated between a path and its painting, as viewers do. */
const STATE_OPS = new Set(["w", "J", "j", "M", "d", "ri", "i", "gs", "g", "G", "rg", "RG", "k", "K", "cs", "CS", "sc", "SC", "scn", "SCN"])
const TEXT_SHOW_OPS = new Set(["Tj", "TJ", "'", "\""])
const REPLACEMENT_TEXT_KEYS = new Set(["ActualText", "Alt", "E"])
const MAX_FORM_DEPTH = 12

/** Interprets one content stream (of a page or a form) and rewrites what paints over the regions. */
class Scrubber {
  /** Output: untouched spans of the input and replacement text. */
  private readonly pieces: Array<Uint8Array | string> = []
  private cursor = 0
  private changed = false
  private affected = false
  private readonly affectedMcids = new Set<number>()
  /** Open marked-content sequences; those with replacement text keep the index of their BDC's piece. */
  private readonly marked: Array<{ readonly dict?: Extract<Operand, { kind: "dict" }>; readonly piece?: number; affected: boolean }> = []

  constructor(
    private readonly ctx: PDFContext,
    private readonly regions: ReadonlyArray<Box>,
    private readonly depth: number,
    private readonly data: Uint8Array,
    private readonly resources: Resources
  ) {}

  run(initial: GraphicsState): ScrubResult {
    const parser = new ContentParser(this.data)
    const stack: Array<GraphicsState> = []
    let state = initial
    let path: Array<Subpath> = []
    let pathStart = -1
    let clipOp: string | undefined
    let interleaved: Array<Operation> = []
    let current: Point = [0, 0]
    const lastSubpath = (): Subpath => {
      if (path.length === 0) path.push(newSubpath(current, undefined, state.ctm))
      return path[path.length - 1]!
    }
    const addSegment = (op: Operation | undefined, to: Point, controls: ReadonlyArray<Point>) => {
      const sub = lastSubpath()
      if (op !== undefined) sub.ops.push(op)
      addEdge(sub, current, to, controls, state.ctm, op)
      current = to
    }

    for (let op = parser.next(); op !== undefined; op = parser.next()) {
      const o = op.operator
      const n = numbers(op)
      if (PATH_OPS.has(o)) {
        if (pathStart < 0) pathStart = op.start
        if (o === "m" && n.length >= 2) {
          current = [n[0]!, n[1]!]
          path.push(newSubpath(current, op, state.ctm))
        } else if (o === "l" && n.length >= 2) addSegment(op, [n[0]!, n[1]!], [])
        else if (o === "c" && n.length >= 6) addSegment(op, [n[4]!, n[5]!], [[n[0]!, n[1]!], [n[2]!, n[3]!]])
        else if (o === "v" && n.length >= 4) addSegment(op, [n[2]!, n[3]!], [current, [n[0]!, n[1]!]])
        else if (o === "y" && n.length >= 4) addSegment(op, [n[2]!, n[3]!], [[n[0]!, n[1]!], [n[2]!, n[3]!]])
        else if (o === "h") {
          const sub = lastSubpath()
          sub.ops.push(op)
          closeSubpath(sub, state.ctm)
          current = sub.start
        } else if (o === "re" && n.length >= 4) {
          const [x, y, w, h] = n as [number, number, number, number]
          const sub = newSubpath([x, y], op, state.ctm)
          path.push(sub)
          const corners: ReadonlyArray<Point> = [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]
          for (let i = 1; i < 4; i++) addEdge(sub, corners[i - 1]!, corners[i]!, [], state.ctm, undefined)
          closeSubpath(sub, state.ctm)
          current = [x, y]
        }
        continue
      }
      if (pathStart >= 0 && (o === "W" || o === "W*")) {
        clipOp = o
        continue
      }
      if (PAINT_OPS.has(o)) {
        if (pathStart >= 0) {
          const text = this.paint(path, o, clipOp, state)
          if (text !== undefined) {
            this.replace(pathStart, op.end, `\n${interleaved.map((i) => this.textOf(i)).join("\n")}\n${text}\n`)
            this.touch()
          }
          if (clipOp !== undefined) {
            const box = path.reduce<Box | undefined>((acc, sub) => acc === undefined ? sub.box : union(acc, sub.box), undefined)
            if (box !== undefined) state = { ...state, clip: state.clip === undefined ? box : intersection(state.clip, box) }
          }
        }
        path = []
        pathStart = -1
        clipOp = undefined
        interleaved = []
        continue
      }
      if (pathStart >= 0) {
        if (STATE_OPS.has(o)) interleaved.push(op)
        else {
          // Anything else inside a path cannot be kept in order once the path is rewritten.
          if (path.some((sub) => this.hits(grow(sub.box, strokeMargin(state))))) {
            throw new Error(`a path over a region is interrupted by the operator ${o}`)
          }
          path = []
          pathStart = -1
          clipOp = undefined
          interleaved = []
        }
      }
      switch (o) {
        case "q":
          stack.push(state)
          break
        case "Q":
          if (stack.length === 0) this.replace(op.start, op.end, "") // an unmatched Q would pop the state around the page
          else state = stack.pop()!
          break
        case "cm":
          if (n.length >= 6) state = { ...state, ctm: concatMatrices(n, state.ctm) }
          break
        case "w":
          if (n.length >= 1) state = { ...state, lineWidth: n[0]! }
          break
        case "gs": {
          const gs = this.resource("ExtGState", op)
          const lineWidth = gs instanceof PDFDict ? gs.lookupMaybe(PDFName.of("LW"), PDFNumber)?.asNumber() : undefined
          if (lineWidth !== undefined) state = { ...state, lineWidth }
          break
        }
        case "sh":
          this.shade(op, state)
          break
        case "Do":
          this.drawXObject(op, state)
          break
        case "BI":
          if (this.hits(transformBox([0, 0, 1, 1], state.ctm))) this.touch()
          break
        case "BMC":
          this.marked.push({ affected: false })
          break
        case "BDC":
          this.beginMarkedContent(op)
          break
        case "EMC":
          this.endMarkedContent()
          break
        default:
          if (TEXT_SHOW_OPS.has(o)) this.touch()
      }
    }
    this.pieces.push(this.data.subarray(this.cursor))
    return {
      bytes: this.changed ? concat(this.pieces.map((p) => typeof p === "string" ? latin1(p) : p)) : this.data,
      changed: this.changed,
      affected: this.affected,
      affectedMcids: this.affectedMcids,
      openStates: stack.length
    }
  }

  private replace(from: number, to: number, text: string) {
    this.pieces.push(this.data.subarray(this.cursor, from), text)
    this.cursor = to
    this.changed = true
  }

  /** Something drawn may lie in a region: so does every marked-content sequence around it. */
  private touch() {
    this.affected = true
    for (const m of this.marked) m.affected = true
  }

  private textOf(op: Operation): string {
    return latin1Text(this.data.subarray(op.start, op.end))
  }

  private resource(category: string, op: Operation): PDFObject | undefined {
    const name = resourceName(op)
    const object = name === undefined ? undefined : this.resources.lookup(category, name)
    return object instanceof PDFRef ? this.ctx.lookup(object) : object
  }

  /** Replaces a Do or sh, noting whether its resource is still drawn. */
  private redraw(category: string, op: Operation, text: string, drawn: boolean) {
    const name = resourceName(op)
    if (name !== undefined) this.resources.mark(category, name, drawn)
    this.replace(op.start, op.end, text)
  }

  private hits(box: Box): boolean {
    return this.regions.some((region) => overlaps(box, region))
  }

  /** A BDC whose properties carry replacement text becomes a piece of its own, to rewrite at its EMC. */
  private beginMarkedContent(op: Operation) {
    const props = op.operands[1]
    if (props?.kind !== "dict") return void this.marked.push({ affected: false })
    if (!props.entries.some(([key]) => REPLACEMENT_TEXT_KEYS.has(key))) return void this.marked.push({ dict: props, affected: false })
    this.pieces.push(this.data.subarray(this.cursor, op.start), this.data.subarray(op.start, op.end))
    this.cursor = op.end
    this.marked.push({ dict: props, piece: this.pieces.length - 1, affected: false })
  }

  private endMarkedContent() {
    const m = this.marked.pop()
    if (m?.affected !== true || m.dict === undefined) return
    const mcid = m.dict.entries.find(([key]) => key === "MCID")?.[1]
    if (mcid?.kind === "number") this.affectedMcids.add(mcid.value)
    if (m.piece === undefined) return
    const bdc = this.pieces[m.piece] as Uint8Array
    const kept = m.dict.entries
      .filter(([key]) => !REPLACEMENT_TEXT_KEYS.has(key))
      .map(([key, value]) => `/${key} ${latin1Text(this.data.subarray(value.start, value.end))}`)
    const dictStart = m.dict.start - (bdc.byteOffset - this.data.byteOffset)
    this.pieces[m.piece] = `${latin1Text(bdc.subarray(0, dictStart))}<<${kept.join(" ")}>>${latin1Text(bdc.subarray(dictStart + m.dict.end - m.dict.start))}`
    this.changed = true
  }

  /** `sh` paints its clip: a smooth function says nothing about the region, so it is clipped out; a mesh carries geometry and goes. */
  private shade(op: Operation, state: GraphicsState) {
    if (state.clip !== undefined && !this.hits(state.clip)) return this.resources.mark("Shading", resourceName(op) ?? "", true)
    this.touch()
    const shading = this.resource("Shading", op)
    const dict = shading instanceof PDFStream ? shading.dict : shading
    const type = dict instanceof PDFDict ? dict.lookupMaybe(PDFName.of("ShadingType"), PDFNumber)?.asNumber() : undefined
    const inverse = invert(state.ctm)
    if (type === undefined || type > 3 || inverse === undefined) return this.redraw("Shading", op, "", false)
    const outer = grow(state.clip ?? [-1e6, -1e6, 1e6, 1e6], 1)
    const quad = ([x0, y0, x1, y1]: Box) =>
      `${([[x0, y0], [x1, y0], [x1, y1], [x0, y1]] as const).map((p, i) => `${point(apply(inverse, p))} ${i === 0 ? "m" : "l"}`).join(" ")} h`
    const clips = this.regions.filter((r) => overlaps(outer, r)).map((r) => `${quad(outer)} ${quad(r)} W* n`)
    this.redraw("Shading", op, `q ${clips.join(" ")} ${this.textOf(op)} Q`, true)
  }

  /** Forms over a region are scrubbed into a copy drawn under a new name; images were MuPDF's work. */
  private drawXObject(op: Operation, state: GraphicsState) {
    if (!this.scrubForm(op, state)) this.resources.mark("XObject", resourceName(op) ?? "", true)
  }

  /** Whether the Do was replaced by one of a scrubbed copy of its form. */
  private scrubForm(op: Operation, state: GraphicsState): boolean {
    const xobject = this.resource("XObject", op)
    if (!(xobject instanceof PDFStream)) return false
    const subtype = xobject.dict.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString()
    if (subtype === "/Image") {
      if (this.hits(transformBox([0, 0, 1, 1], state.ctm))) this.touch()
      return false
    }
    if (subtype !== "/Form") return false
    const matrix = numberArray(xobject.dict.lookupMaybe(PDFName.of("Matrix"), PDFArray), this.ctx) ?? [1, 0, 0, 1, 0, 0]
    const ctm = concatMatrices(matrix, state.ctm)
    const bbox = numberArray(xobject.dict.lookupMaybe(PDFName.of("BBox"), PDFArray), this.ctx)
    const box = bbox?.length === 4 ? transformBox(bbox as unknown as Box, ctm) : undefined
    const clip = box === undefined ? state.clip : state.clip === undefined ? box : intersection(state.clip, box)
    if (clip !== undefined && !this.hits(clip)) return false
    if (this.depth >= MAX_FORM_DEPTH) throw new Error(`form XObjects are nested more than ${MAX_FORM_DEPTH} deep`)
    const own = xobject.dict.lookupMaybe(PDFName.of("Resources"), PDFDict)
    const resources = own === undefined ? this.resources : new Resources(this.ctx, own)
    const result = new Scrubber(this.ctx, this.regions, this.depth + 1, streamBytes(xobject), resources).run({ ...state, ctm, clip })
    if (result.affected) this.touch()
    if (!result.changed) return false
    const dict = xobject.dict.clone()
    dict.delete(PDFName.of("PieceInfo"))
    const ownResources = own === undefined ? undefined : resources.modified()
    if (ownResources !== undefined) dict.set(PDFName.of("Resources"), ownResources)
    const copy = this.ctx.register(flateStream(dict, result.bytes))
    this.redraw("XObject", op, `/${this.resources.addXObject(copy)} Do`, false)
    return true
  }

  /**
   * The path without what it paints over a region: filled subpaths lose the area inside the regions
   * (cut exactly, curves flattened), stroked ones the stretches within the stroke's reach of a region.
   * A clip is kept whole: it paints nothing. Undefined when nothing is painted over a region.
   */
  private paint(path: ReadonlyArray<Subpath>, op: string, clipOp: string | undefined, state: GraphicsState): string | undefined {
    if (op === "n") return undefined
    if (op === "s" || op === "b" || op === "b*") {
      const last = path[path.length - 1]
      if (last !== undefined && !last.closed) closeSubpath(last, state.ctm)
    }
    const fills = op !== "S" && op !== "s"
    const strokes = op === "S" || op === "s" || op.startsWith("B") || op.startsWith("b")
    const margin = strokes ? strokeMargin(state) : 0
    if (!path.some((sub) => this.hits(grow(sub.box, margin)))) return undefined
    const parts: Array<string> = []
    if (fills) {
      const kept = path.flatMap((sub) => this.hits(sub.box) ? this.fillOutside(sub, state.ctm) : [this.verbatim(sub)])
      if (kept.length > 0) parts.push(`${kept.join("\n")} ${op.endsWith("*") ? "f*" : "f"}`)
    }
    if (strokes) {
      const kept = path.flatMap((sub) => this.strokeOutside(sub, state.ctm, margin))
      if (kept.length > 0) parts.push(`${kept.join("\n")} S`)
    }
    if (clipOp !== undefined) parts.push(`${path.map((sub) => this.verbatim(sub)).join("\n")} ${clipOp} n`)
    return parts.join("\n")
  }

  private verbatim(sub: Subpath): string {
    const first = sub.ops[0]?.operator
    const text = sub.ops.map((o) => this.textOf(o)).join(" ")
    return first === "m" || first === "re" ? text : `${point(sub.start)} m ${text}`
  }

  /**
   * A filled subpath minus the regions, as polygons: clipped against each of the four convex parts
   * around a region, which keeps every point's winding number there, so either fill rule fills
   * outside the region exactly as before.
   */
  private fillOutside(sub: Subpath, ctm: Matrix): Array<string> {
    const inverse = invert(ctm)
    if (inverse === undefined) return []
    let pieces: Array<ReadonlyArray<Point>> = [flatten(sub, ctm)]
    for (const region of this.regions) {
      pieces = pieces.flatMap((piece) => overlaps(boxOf(piece), region) ? aroundRegion(piece, region) : [piece])
    }
    return pieces.map((piece) => `${piece.map((p, i) => `${point(apply(inverse, p))} ${i === 0 ? "m" : "l"}`).join(" ")} h`)
  }

  /** The stretches of a stroked subpath out of the stroke's reach of every region, as runs of their own. */
  private strokeOutside(sub: Subpath, ctm: Matrix, margin: number): Array<string> {
    if (!sub.segments.some((segment) => this.hits(grow(segment.box, margin)))) {
      return sub.segments.length === 0 && this.hits(grow(sub.box, margin)) ? [] : [this.verbatim(sub)]
    }
    const reach = this.regions.map((region) => grow(region, margin))
    const runs: Array<string> = []
    let run: Array<string> = []
    let end: Point | undefined
    const emit = (from: Point, to: Point, text: string) => {
      if (end === undefined || end[0] !== from[0] || end[1] !== from[1]) {
        if (run.length > 0) runs.push(run.join(" "))
        run = [`${point(from)} m`]
      }
      run.push(text)
      end = to
    }
    for (const segment of sub.segments) {
      if (!reach.some((r) => overlaps(segment.box, r))) {
        emit(segment.from, segment.to, segment.op === undefined ? `${point(segment.to)} l` : this.textOf(segment.op))
      } else if (segment.controls.length === 0) {
        for (const [from, to] of linePieces(segment.from, segment.to, ctm, reach)) emit(from, to, `${point(to)} l`)
      } else {
        const [c1, c2] = segment.controls as [Point, Point]
        for (const c of curvePieces([segment.from, c1, c2, segment.to], ctm, reach, 0)) emit(c[0], c[3], `${point(c[1])} ${point(c[2])} ${point(c[3])} c`)
      }
    }
    if (run.length > 0) runs.push(run.join(" "))
    return runs
  }
}

const newSubpath = (start: Point, op: Operation | undefined, ctm: Matrix): Subpath => {
  const [x, y] = apply(ctm, start)
  return { ops: op === undefined ? [] : [op], start, segments: [], box: [x, y, x, y], closed: false }
}

const addEdge = (sub: Subpath, from: Point, to: Point, controls: ReadonlyArray<Point>, ctm: Matrix, op: Operation | undefined) => {
  const box = boxOf([from, ...controls, to].map((p) => apply(ctm, p)))
  sub.segments.push({ op, from, to, controls, box })
  sub.box = union(sub.box, box)
}

/** Closing draws a line back to the start when stroked; it is a segment like the others. */
const closeSubpath = (sub: Subpath, ctm: Matrix) => {
  const end = sub.segments[sub.segments.length - 1]?.to ?? sub.start
  if (end[0] !== sub.start[0] || end[1] !== sub.start[1]) addEdge(sub, end, sub.start, [], ctm, undefined)
  sub.closed = true
}

/**
 * How far a stroke paints beyond its path in page space: half the width, a square cap's corner
 * included. Miter spikes at kept joins may reach further; they show nothing of what was removed.
 */
const strokeMargin = (state: GraphicsState): number => {
  const [a, b, c, d] = state.ctm
  return (Math.abs(state.lineWidth) / 2) * Math.SQRT2 * Math.max(Math.hypot(a, b), Math.hypot(c, d))
}

const lerp = (a: Point, b: Point, t: number): Point => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]

/** The parts of a line (user space) outside the boxes (page space); affine maps keep the line's parameter. */
const linePieces = (from: Point, to: Point, ctm: Matrix, boxes: ReadonlyArray<Box>): Array<readonly [Point, Point]> => {
  const [p, q] = [apply(ctm, from), apply(ctm, to)]
  const inside = boxes.flatMap((box) => {
    // Liang–Barsky: the parameter interval of the line inside the box.
    let [t0, t1] = [0, 1]
    for (const [delta, low, high, origin] of [[q[0] - p[0], box[0], box[2], p[0]], [q[1] - p[1], box[1], box[3], p[1]]] as const) {
      if (delta === 0) {
        if (origin <= low || origin >= high) return []
        continue
      }
      const [a, b] = [(low - origin) / delta, (high - origin) / delta]
      t0 = Math.max(t0, Math.min(a, b))
      t1 = Math.min(t1, Math.max(a, b))
    }
    return t0 < t1 ? [[t0, t1] as const] : []
  }).sort((a, b) => a[0] - b[0])
  const pieces: Array<readonly [Point, Point]> = []
  let t = 0
  for (const [t0, t1] of inside) {
    if (t0 > t) pieces.push([lerp(from, to, t), lerp(from, to, t0)])
    t = Math.max(t, t1)
  }
  if (t < 1) pieces.push([t === 0 ? from : lerp(from, to, t), to])
  return pieces
}

type Cubic = readonly [Point, Point, Point, Point]

const halves = ([p0, p1, p2, p3]: Cubic): [Cubic, Cubic] => {
  const [a, b, c] = [lerp(p0, p1, 0.5), lerp(p1, p2, 0.5), lerp(p2, p3, 0.5)]
  const [d, e] = [lerp(a, b, 0.5), lerp(b, c, 0.5)]
  const m = lerp(d, e, 0.5)
  return [[p0, a, d, m], [m, e, c, p3]]
}

/** The parts of a curve clear of the boxes, by halving it until a part's control points are clear (or tiny, then dropped). */
const curvePieces = (curve: Cubic, ctm: Matrix, boxes: ReadonlyArray<Box>, depth: number): Array<Cubic> => {
  const box = boxOf(curve.map((p) => apply(ctm, p)))
  if (!boxes.some((b) => overlaps(box, b))) return [curve]
  if (depth >= 10) return []
  const [first, second] = halves(curve)
  return [...curvePieces(first, ctm, boxes, depth + 1), ...curvePieces(second, ctm, boxes, depth + 1)]
}

/** A subpath's outline in page space, curves flattened to within 0.05 pt. */
const flatten = (sub: Subpath, ctm: Matrix): Array<Point> => {
  const points: Array<Point> = [apply(ctm, sub.start)]
  const flat = (curve: Cubic, depth: number) => {
    const [p0, p1, p2, p3] = curve
    const chord = Math.hypot(p3[0] - p0[0], p3[1] - p0[1]) || 1
    const distance = (p: Point) => Math.abs((p3[0] - p0[0]) * (p0[1] - p[1]) - (p0[0] - p[0]) * (p3[1] - p0[1])) / chord
    if (depth >= 12 || Math.max(distance(p1), distance(p2)) <= 0.05) points.push(p3)
    else for (const half of halves(curve)) flat(half, depth + 1)
  }
  for (const segment of sub.segments) {
    if (segment.controls.length === 0) points.push(apply(ctm, segment.to))
    else flat([segment.from, ...segment.controls, segment.to].map((p) => apply(ctm, p)) as unknown as Cubic, 0)
  }
  return points
}

/** Sutherland–Hodgman against one axis-parallel half-plane: coordinate `axis` <= `limit` (or >= when `above`). */
const clipHalf = (polygon: ReadonlyArray<Point>, axis: 0 | 1, limit: number, above: boolean): Array<Point> => {
  const inside = (p: Point) => above ? p[axis] >= limit : p[axis] <= limit
  const out: Array<Point> = []
  for (let i = 0; i < polygon.length; i++) {
    const [a, b] = [polygon[i]!, polygon[(i + 1) % polygon.length]!]
    if (inside(a)) out.push(a)
    if (inside(a) !== inside(b)) out.push(lerp(a, b, (limit - a[axis]) / (b[axis] - a[axis])))
  }
  return out
}

/** A polygon minus a box: its parts left of, right of, below and above the box (disjoint, convex areas). */
const aroundRegion = (polygon: ReadonlyArray<Point>, [x0, y0, x1, y1]: Box): Array<ReadonlyArray<Point>> => {
  const column = clipHalf(clipHalf(polygon, 0, x0, true), 0, x1, false)
  return [clipHalf(polygon, 0, x0, false), clipHalf(polygon, 0, x1, true), clipHalf(column, 1, y0, false), clipHalf(column, 1, y1, true)]
    .filter((piece) => {
      const [bx0, by0, bx1, by1] = boxOf(piece)
      return piece.length >= 3 && bx1 > bx0 && by1 > by0
    })
}

const resourceName = (op: Operation): string | undefined => {
  const first = op.operands[0]
  return first?.kind === "name" ? first.value : undefined
}

const numbers = (op: Operation): Array<number> => op.operands.flatMap((o) => o.kind === "number" ? [o.value] : [])

const numberArray = (array: PDFArray | undefined, ctx: PDFContext): Array<number> | undefined => {
  if (array === undefined) return undefined
  const values = array.asArray().map((item) => ctx.lookup(item))
  return values.every((v) => v instanceof PDFNumber) ? values.map((v) => (v as PDFNumber).asNumber()) : undefined
}

// ---- annotations, structure, unreferenced objects --------------------------------------------

/** Annotations over a region and all Redact annotations leave the page; widgets take their form field along. */
const removeAnnotations = (doc: PDFDocument, page: PDFDict, regions: ReadonlyArray<Box>) => {
  const ctx = doc.context
  const annots = page.lookupMaybe(PDFName.of("Annots"), PDFArray)
  if (annots === undefined) return
  const entries = annots.asArray().map((item) => {
    const dict = ctx.lookup(item)
    return { item, dict: dict instanceof PDFDict ? dict : undefined }
  })
  const removed = new Set<PDFObject>()
  for (const { item, dict } of entries) {
    if (dict === undefined) continue
    const rect = numberArray(dict.lookupMaybe(PDFName.of("Rect"), PDFArray), ctx)
    const box = rect?.length === 4 ? boxOf([[rect[0]!, rect[1]!], [rect[2]!, rect[3]!]]) : undefined
    const subtype = dict.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString()
    if (subtype === "/Redact" || (box !== undefined && regions.some((r) => overlaps(box, r)))) removed.add(item)
  }
  for (const { item, dict } of entries) {
    const parent = dict?.get(PDFName.of("Parent"))
    if (parent !== undefined && removed.has(parent) && dict?.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString() === "/Popup") removed.add(item)
  }
  if (removed.size === 0) return
  const kept = entries.filter(({ item }) => !removed.has(item))
  for (const { dict } of kept) {
    const popup = dict?.get(PDFName.of("Popup"))
    if (popup !== undefined && removed.has(popup)) dict!.delete(PDFName.of("Popup"))
  }
  if (kept.length > 0) page.set(PDFName.of("Annots"), ctx.obj(kept.map(({ item }) => item)))
  else page.delete(PDFName.of("Annots"))
  const acroForm = doc.catalog.lookupMaybe(PDFName.of("AcroForm"), PDFDict)
  for (const { item, dict } of entries) {
    if (!removed.has(item) || !(item instanceof PDFRef)) continue
    const widget = dict?.lookupMaybe(PDFName.of("Subtype"), PDFName)?.asString() === "/Widget"
    if (widget && acroForm !== undefined) removeField(ctx, acroForm, item)
    // The structure tree may still point at it (OBJR); a reference to a deleted object reads as null.
    ctx.delete(item)
  }
}

/** Takes a widget out of the field tree; a field left without widgets goes too, value and all. */
const removeField = (ctx: PDFContext, acroForm: PDFDict, ref: PDFRef) => {
  const node = ctx.lookup(ref)
  if (!(node instanceof PDFDict)) return
  const parentRef = node.get(PDFName.of("Parent"))
  const parent = parentRef instanceof PDFRef ? ctx.lookup(parentRef) : undefined
  const owner = parent instanceof PDFDict ? parent : acroForm
  const key = parent instanceof PDFDict ? "Kids" : "Fields"
  const siblings = owner.lookupMaybe(PDFName.of(key), PDFArray)
  if (siblings !== undefined) {
    const rest = siblings.asArray().filter((kid) => kid !== ref)
    owner.set(PDFName.of(key), ctx.obj(rest))
    if (rest.length === 0 && parentRef instanceof PDFRef) removeField(ctx, acroForm, parentRef)
  }
  const order = acroForm.lookupMaybe(PDFName.of("CO"), PDFArray)
  if (order !== undefined) acroForm.set(PDFName.of("CO"), ctx.obj(order.asArray().filter((f) => f !== ref)))
}

/**
 * Structure elements whose marked content touched a region lose /ActualText, /Alt and /E (an image
 * description or the spelled-out text of what was removed); enclosing elements too.
 */
const stripStructureText = (ctx: PDFContext, root: PDFDict, affected: ReadonlyMap<PDFRef, ReadonlySet<number>>) => {
  const seen = new Set<PDFObject>()
  const visit = (node: PDFObject | undefined, page: PDFObject | undefined): boolean => {
    const dict = node instanceof PDFRef ? ctx.lookup(node) : node
    if (node === undefined || seen.has(node) || !(dict instanceof PDFDict || dict instanceof PDFArray || dict instanceof PDFNumber)) return false
    if (node instanceof PDFRef) seen.add(node)
    if (dict instanceof PDFNumber) return page instanceof PDFRef && affected.get(page)?.has(dict.asNumber()) === true
    if (dict instanceof PDFArray) return dict.asArray().map((kid) => visit(kid, page)).some(Boolean)
    const pg = dict.get(PDFName.of("Pg")) ?? page
    const type = dict.lookupMaybe(PDFName.of("Type"), PDFName)?.asString()
    if (type === "/MCR") return visit(dict.get(PDFName.of("MCID")), pg)
    if (type === "/OBJR") return false
    const hit = visit(dict.get(PDFName.of("K")), pg)
    if (hit) for (const key of REPLACEMENT_TEXT_KEYS) dict.delete(PDFName.of(key))
    return hit
  }
  visit(root.get(PDFName.of("K")), undefined)
}

/** Deletes every object the trailer cannot reach: the originals MuPDF and this pass replaced. */
const dropUnreferenced = (ctx: PDFContext) => {
  const reached = new Set<PDFRef>()
  const pending: Array<PDFObject> = [ctx.trailerInfo.Root, ctx.trailerInfo.Info].filter((o): o is PDFObject => o !== undefined)
  while (pending.length > 0) {
    const object = pending.pop()!
    if (object instanceof PDFRef) {
      if (reached.has(object)) continue
      reached.add(object)
      const target = ctx.lookup(object)
      if (target !== undefined) pending.push(target)
    } else if (object instanceof PDFDict) pending.push(...object.values())
    else if (object instanceof PDFArray) pending.push(...object.asArray())
    else if (object instanceof PDFStream) pending.push(object.dict)
  }
  for (const [ref] of ctx.enumerateIndirectObjects()) if (!reached.has(ref)) ctx.delete(ref)
}

// ---- geometry and bytes ----------------------------------------------------------------------



const boxOf = (points: ReadonlyArray<Point>): Box => {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
  for (const [x, y] of points) {
    x0 = Math.min(x0, x)
    y0 = Math.min(y0, y)
    x1 = Math.max(x1, x)
    y1 = Math.max(y1, y)
  }
  return [x0, y0, x1, y1]
}

const transformBox = ([x0, y0, x1, y1]: Box, m: Matrix): Box => boxOf([[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map((p) => apply(m, p as unknown as Point)))

const union = (a: Box, b: Box): Box => [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]

const intersection = (a: Box, b: Box): Box => [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])]

const grow = ([x0, y0, x1, y1]: Box, by: number): Box => [x0 - by, y0 - by, x1 + by, y1 + by]

/** Whether a box has something inside a region; touching its edge is not enough. A line of no width inside counts. */
const overlaps = (a: Box, region: Box) => a[0] < region[2] && region[0] < a[2] && a[1] < region[3] && region[1] < a[3] ||
  (a[0] === a[2] && a[0] > region[0] && a[0] < region[2] && a[1] < region[3] && region[1] < a[3]) ||
  (a[1] === a[3] && a[1] > region[1] && a[1] < region[3] && a[0] < region[2] && region[0] < a[2])

const point = ([x, y]: Point): string => `${num(x)} ${num(y)}`

const num = (n: number): string => {
  const text = (Math.round(n * 1e6) / 1e6).toString()
  return text === "-0" ? "0" : text.includes("e") ? n.toFixed(6) : text
}

const latin1 = (text: string): Uint8Array => Buffer.from(text, "latin1")

const latin1Text = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => Buffer.concat(parts)
