/**
 * The PDF worker thread: pdf.js (legacy build, canvas from @napi-rs/canvas) plus sharp for PNG.
 * Each worker keeps its recently used documents open, so a page request never re-parses a file.
 */
import { WorkerRunner } from "@effect/platform"
import { NodeContext, NodeRuntime, NodeWorkerRunner } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { readFile, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { workerData } from "node:worker_threads"
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs"
import type { PDFDocumentProxy, PDFPageProxy } from "pdfjs-dist/types/src/display/api.js"
import { PDFDocument, type PDFPage } from "pdf-lib"
import sharp from "sharp"
import { Bookmark, NamedDestination, SignatureInfo, Signatures, type TextPosition } from "../../../schemas/broker/Content.ts"
import { pageGeometries } from "../annotations/PageSpace.ts"
import { dropKeptAnnotations, readAnnotations, writeAnnotations } from "../annotations/PdfAnnotations.ts"
import { diffPageImages } from "../comparisons/ImageDiff.ts"
import { diffText } from "../comparisons/TextDiff.ts"
import { writeOutline } from "../outline/Outline.ts"
import { pageTextPositions, pdfjsResources } from "./PdfJsSetup.ts"
import { redactedDocument } from "../transformations/Redaction.ts"
import { certificatesFromPem, type TrustStore, verifySignatures } from "../signatures/SignatureVerification.ts"
import { compilePattern, InvalidSearchPattern, searchRuns } from "../text/Text.ts"
import { AnnotationBasis, PageBox, PdfSummary, PdfOpenFailed, PdfOperationFailed, PdfRequest } from "./Protocol.ts"

export interface PdfWorkerOptions {
  /** Documents each worker keeps open. */
  readonly openDocuments: number
  /** PEM files, or directories of them, with the certificates signatures are trusted to chain to. */
  readonly trustStore: ReadonlyArray<string>
  /** Longest one document's redaction (MuPDF and the vector pass) may take. */
  readonly redactionTimeoutMs: number
}

const options: PdfWorkerOptions = workerData ?? { openDocuments: 8, trustStore: [], redactionTimeoutMs: 120_000 }

/** The trust store, read on first use and kept (a file that cannot be read is left out, with a warning). */
const trustStore = (() => {
  let store: TrustStore | undefined
  return () => {
    if (store) return store
    const certificates: Array<Uint8Array> = []
    const readPem = (file: string) => {
      try {
        certificates.push(...certificatesFromPem(readFileSync(file)))
      } catch (error) {
        console.warn(`SIGNATURE_TRUST_STORE: ${file} cannot be read (${error instanceof Error ? error.message : String(error)})`)
      }
    }
    for (const entry of options.trustStore) {
      if (existsSync(entry) && statSync(entry).isDirectory()) {
        for (const name of readdirSync(entry)) if (/\.(pem|crt|cer|der)$/i.test(name)) readPem(path.join(entry, name))
      } else if (existsSync(entry)) readPem(entry)
    }
    store = { certificates }
    return store
  }
})()

/** A small LRU: Map keeps insertion order, so re-inserting on use moves an entry to the back. */
class Lru<V> {
  private readonly entries = new Map<string, V>()
  constructor(private readonly capacity: number, private readonly onEvict: (value: V) => void = () => {}) {}
  get(key: string): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }
  set(key: string, value: V) {
    this.entries.delete(key)
    this.entries.set(key, value)
    while (this.entries.size > this.capacity) {
      const [oldest, evicted] = this.entries.entries().next().value as [string, V]
      this.entries.delete(oldest)
      this.onEvict(evicted)
    }
  }
  delete(key: string) {
    this.entries.delete(key)
  }
}

const openDocuments = new Lru<Promise<PDFDocumentProxy>>(options.openDocuments, (doc) => {
  doc.then((d) => d.destroy()).catch(() => {})
})
/** Search text per document and page, without font names (search results do not carry them). */
const searchText = new Lru<Map<number, ReadonlyArray<TextPosition>>>(options.openDocuments * 2)

const classifyOpenError = (error: unknown) => {
  const name = (error as { name?: string })?.name
  const message = error instanceof Error ? error.message : String(error)
  return name === "PasswordException"
    ? new PdfOpenFailed({ reason: "password", message: "The PDF is protected by a password" })
    : new PdfOpenFailed({ reason: "damaged", message: `The PDF cannot be read: ${message}` })
}

const open = (source: { readonly hash: string; readonly path: string }) =>
  Effect.tryPromise({
    try: () => {
      let doc = openDocuments.get(source.hash)
      if (!doc) {
        doc = readFile(source.path).then((bytes) =>
          pdfjs.getDocument({ ...pdfjsResources, data: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) }).promise
        )
        doc.catch(() => openDocuments.delete(source.hash))
        openDocuments.set(source.hash, doc)
      }
      return doc
    },
    catch: classifyOpenError
  })

const attempt = <A>(what: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (error) => new PdfOperationFailed({ message: `${what} failed: ${error instanceof Error ? error.message : String(error)}` })
  })

/** The document's own canvas factory: one copy of the canvas package, the one pdf.js loaded. */
interface CanvasFactory {
  create(width: number, height: number): { canvas: unknown; context: CanvasRenderingContext2D }
  destroy(target: { canvas: unknown; context: CanvasRenderingContext2D }): void
}

const searchRunsOf = async (hash: string, doc: PDFDocumentProxy, pageIndex: number) => {
  let pages = searchText.get(hash)
  if (!pages) {
    pages = new Map()
    searchText.set(hash, pages)
  }
  let runs = pages.get(pageIndex)
  if (!runs) {
    // A page the damaged page tree does not reach (see Analyze) shows nothing, so it has nothing to find.
    const page = await doc.getPage(pageIndex + 1).catch(() => undefined)
    runs = page ? await pageTextPositions(page, false) : []
    pages.set(pageIndex, runs)
  }
  return runs
}

/** Applies the descriptor's filters: C contrast and B brightness in percent, I invert when not 0. */
const applyFilters = (image: sharp.Sharp, filters: ReadonlyArray<{ readonly code: string; readonly value: number }>) =>
  filters.reduce((img, { code, value }) => {
    switch (code) {
      case "C": {
        const factor = Math.max(0, (100 + value) / 100)
        return img.linear(factor, 128 * (1 - factor))
      }
      case "B":
        return img.linear(1, 2.55 * value)
      default:
        return value === 0 ? img : img.negate({ alpha: false })
    }
  }, image)

const outlineToBookmarks = async (doc: PDFDocumentProxy, items: ReadonlyArray<OutlineNode>): Promise<Array<Bookmark>> => {
  const result: Array<Bookmark> = []
  for (const item of items) {
    const target = await resolveDest(doc, item.dest)
    result.push({
      title: item.title,
      page: target?.page ?? -1,
      textPosition: target?.top ?? 0,
      nodeOpen: (item.count ?? 0) > 0,
      children: await outlineToBookmarks(doc, item.items),
      namedDestination: typeof item.dest === "string" ? item.dest : null,
      fileName: item.url ?? null,
      shouldOpenInNewWindow: item.newWindow ?? false
    })
  }
  return result
}

interface OutlineNode {
  readonly title: string
  readonly dest: string | ReadonlyArray<unknown> | null
  readonly url: string | null
  readonly newWindow?: boolean | undefined
  readonly count?: number | undefined
  readonly items: ReadonlyArray<OutlineNode>
}

/** A destination's 0-based page and, for XYZ/FitH targets, its top in displayed points. */
const resolveDest = async (doc: PDFDocumentProxy, dest: string | ReadonlyArray<unknown> | null) => {
  try {
    const explicit = typeof dest === "string" ? await doc.getDestination(dest) : dest
    if (!explicit || explicit.length === 0) return undefined
    const ref = explicit[0]
    const pageIndex = typeof ref === "number" ? ref : await doc.getPageIndex(ref as Parameters<PDFDocumentProxy["getPageIndex"]>[0])
    const kind = (explicit[1] as { name?: string } | undefined)?.name
    const y = kind === "XYZ" ? explicit[3] : kind === "FitH" || kind === "FitBH" ? explicit[2] : null
    let top = 0
    if (typeof y === "number") {
      const page = await doc.getPage(pageIndex + 1)
      top = Math.max(0, page.getViewport({ scale: 1 }).convertToViewportPoint(0, y)[1]!)
    }
    return { page: pageIndex, top: Math.round(top * 100) / 100 }
  } catch {
    return undefined
  }
}

interface RenderSettings {
  readonly width: number
  readonly rotation: number
  readonly filters: ReadonlyArray<{ readonly code: string; readonly value: number }>
  readonly maxPixels: number
}

const renderPng = async (doc: PDFDocumentProxy, page: PDFPageProxy, settings: RenderSettings) => {
  const rotation = (page.rotate + settings.rotation) % 360
  const unit = page.getViewport({ scale: 1, rotation })
  const viewport = page.getViewport({ scale: settings.width / unit.width, rotation })
  const width = settings.width
  const height = Math.max(1, Math.round(viewport.height))
  if (width * height > settings.maxPixels) {
    throw new Error(`the image would have ${width}x${height} pixels, more than the limit of ${settings.maxPixels}`)
  }
  const canvasFactory = doc.canvasFactory as CanvasFactory
  const target = canvasFactory.create(width, height)
  try {
    target.context.fillStyle = "#ffffff"
    target.context.fillRect(0, 0, width, height)
    await page.render({ canvas: target.canvas as HTMLCanvasElement, canvasContext: target.context, viewport }).promise
    const pixels = target.context.getImageData(0, 0, width, height).data
    // Measured: sharp from raw RGBA at compression 1 encodes ~9x faster than the canvas encoder at a similar size.
    const image = applyFilters(sharp(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), { raw: { width, height, channels: 4 } }), settings.filters)
    return new Uint8Array(await image.removeAlpha().png({ compressionLevel: 1, adaptiveFiltering: false }).toBuffer())
  } finally {
    canvasFactory.destroy(target)
    page.cleanup()
  }
}

/** A PDF for pdf-lib (reading its objects, writing new ones); encrypted files are read as they are. */
const loadWithPdfLib = async (path: string) =>
  PDFDocument.load(await readFile(path), { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false })

const pageOf = (doc: PDFDocumentProxy, index: number) =>
  index < 0 || index >= doc.numPages
    ? Effect.fail(new PdfOperationFailed({ message: `Page ${index} is outside 0..${doc.numPages - 1}` }))
    : attempt(`Loading page ${index}`, () => doc.getPage(index + 1))

const handlers = WorkerRunner.layerSerialized(PdfRequest, {
  Analyze: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      return yield* attempt("Reading the page tree", async () => {
        // A damaged page tree (a cycle, a kid of the wrong type) can make single pages unreachable while
        // the others load; other readers still show those, so the document is refused only when no page
        // loads, and an unreachable page keeps its place with the box of the page before it.
        const found: Array<PageBox | undefined> = []
        let failure: unknown
        for (let i = 1; i <= doc.numPages; i++) {
          const page = await doc.getPage(i).catch((error: unknown) => {
            failure ??= error
            return undefined
          })
          if (!page) {
            found.push(undefined)
            continue
          }
          const [x0, y0, x1, y1] = page.view as [number, number, number, number]
          found.push(new PageBox({ width: Math.abs(x1 - x0) * page.userUnit, height: Math.abs(y1 - y0) * page.userUnit, rotation: page.rotate }))
        }
        if (found.length > 0 && found.every((box) => box === undefined)) throw failure
        let previous = found.find((box) => box !== undefined)!
        const boxes = found.map((box) => (previous = box ?? previous))
        const { info } = await doc.getMetadata()
        const text: Record<string, string> = {}
        for (const [key, value] of Object.entries((info ?? {}) as Record<string, unknown>)) {
          if (typeof value === "string" && value.trim() !== "") text[key] = value
        }
        // The first page is what a viewer asks for next, and this worker has the document open now.
        const firstPage = found[0] === undefined
          ? undefined
          : await doc.getPage(1).then((page) => renderPng(doc, page, req.firstPage)).catch(() => undefined)
        return new PdfSummary({ pages: boxes, info: text, firstPage })
      })
    }),

  RenderPage: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const page = yield* pageOf(doc, req.page)
      return yield* attempt(`Rendering page ${req.page}`, () => renderPng(doc, page, req))
    }),

  ExtractText: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const page = yield* pageOf(doc, req.page)
      return yield* attempt(`Extracting text of page ${req.page}`, () => pageTextPositions(page, true))
    }),

  SearchPages: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      const pattern = yield* Effect.try({
        try: () => compilePattern(req.options),
        catch: (error) => new PdfOperationFailed({ message: error instanceof InvalidSearchPattern ? error.message : String(error) })
      })
      return yield* attempt("Searching", async () => {
        const results = []
        for (let p = req.fromPage; p <= Math.min(req.toPage, doc.numPages - 1); p++) {
          const { hits, matches } = searchRuns(p, await searchRunsOf(req.hash, doc, p), pattern, req.options.accentSensitive)
          if (hits.length > 0) results.push({ page: p, hits, matches })
        }
        return results
      })
    }),

  ReadOutline: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      return yield* attempt("Reading the outline", async () =>
        outlineToBookmarks(doc, ((await doc.getOutline()) ?? []) as unknown as ReadonlyArray<OutlineNode>))
    }),

  ReadDestinations: (req) =>
    Effect.gen(function*() {
      const doc = yield* open(req)
      return yield* attempt("Reading named destinations", async () => {
        const destinations = await doc.getDestinations()
        const result: Array<NamedDestination> = []
        for (const name of Object.keys(destinations).sort()) {
          const target = await resolveDest(doc, destinations[name] as ReadonlyArray<unknown>)
          if (target) result.push(new NamedDestination({ name, page: target.page }))
        }
        return result
      })
    }),

  ReadAnnotations: (req) =>
    attempt("Reading annotations", async () => {
      const pdf = await loadWithPdfLib(req.path)
      return new AnnotationBasis({ pages: pageGeometries(pdf), fileAnnotations: readAnnotations(pdf) })
    }),

  Transform: (req) =>
    Effect.gen(function*() {
      const sources = yield* Effect.forEach(req.sources, (source) =>
        Effect.gen(function*() {
          const bytes = new Uint8Array(yield* attempt("Reading a source document", () => readFile(source.path)))
          // A redacted source is taken as redaction left it, not written out and parsed again.
          return source.redactions.length === 0
            ? yield* attempt("Opening a source document", () => PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false }))
            : yield* redactedDocument(bytes, source.redactions, { timeoutMs: options.redactionTimeoutMs }).pipe(
              Effect.mapError((e) => new PdfOperationFailed({ message: e.message })),
              Effect.provide(NodeContext.layer)
            )
        }))
      return yield* attempt("Building the result", async () => {
        const files: Array<string> = []
        for (const [i, output] of req.outputs.entries()) {
          const result = await PDFDocument.create()
          // One copy per source and output, so that what its pages share (fonts, images) is copied once.
          const copied = new Map<number, Array<PDFPage>>()
          for (const [source, doc] of sources.entries()) {
            const indices = output.pages.filter((p) => p.source === source).map((p) => p.page)
            if (indices.length > 0) copied.set(source, await result.copyPages(doc, indices))
          }
          for (const p of output.pages) result.addPage(copied.get(p.source)!.shift()!)
          if (output.replaceOwnAnnotations === true) dropKeptAnnotations(result)
          writeAnnotations(result, output.annotations, output.annotationMode)
          if (output.title !== undefined) result.setTitle(output.title)
          if (output.outline !== undefined) writeOutline(result, output.outline)
          const file = path.join(req.outDir, `result-${i}.pdf`)
          await writeFile(file, await result.save())
          files.push(file)
        }
        return files
      })
    }),

  Compare: (req) =>
    Effect.gen(function*() {
      const [left, right] = yield* Effect.all([open(req.left), open(req.right)])
      return yield* attempt("Comparing the documents", async () => {
        const output = await PDFDocument.create()
        const settings = { width: req.width, rotation: 0, filters: [], maxPixels: req.maxPixels }
        /** A page rendered at the comparison's width, with its displayed size in points; undefined past the document's end. */
        const render = async (doc: PDFDocumentProxy, index: number) => {
          if (index >= doc.numPages) return undefined
          const page = await doc.getPage(index + 1)
          const { width, height } = page.getViewport({ scale: 1 })
          return { png: await renderPng(doc, page, settings), width, height }
        }
        const pages = Math.max(left.numPages, right.numPages)
        for (let i = 0; i < pages; i++) {
          const [l, r] = [await render(left, i), await render(right, i)]
          const diff = await diffPageImages(l?.png, r?.png, { fuzz: req.fuzz, colors: { highlight: req.highlight, lowlight: req.lowlight } })
          // Both pages were drawn at one width: the result is as wide as the wider page and as tall as
          // the taller one at that width (its points, not its rounded pixels), the image filling it.
          const width = Math.max(l?.width ?? 0, r?.width ?? 0)
          const height = Math.max(...[l, r].map((side) => (side === undefined ? 0 : (side.height * width) / side.width)))
          const image = await output.embedPng(diff.png)
          output.addPage([width, height]).drawImage(image, { x: 0, y: 0, width, height })
        }
        await writeFile(req.outPath, await output.save())
      })
    }),

  DiffText: (req) =>
    Effect.gen(function*() {
      const [left, right] = yield* Effect.all([open(req.left), open(req.right)])
      return yield* attempt("Comparing the documents' text", async () => {
        const textOf = async (doc: PDFDocumentProxy) => {
          const pages: Array<ReadonlyArray<TextPosition>> = []
          for (let i = 1; i <= doc.numPages; i++) pages.push(await pageTextPositions(await doc.getPage(i), true))
          return pages
        }
        return diffText(await textOf(left), await textOf(right))
      })
    }),

  VerifySignatures: (req) =>
    attempt("Verifying signatures", async () => {
      const verified = await verifySignatures(new Uint8Array(await readFile(req.path)), trustStore())
      return new Signatures({ ...verified, signatures: verified.signatures.map((s) => new SignatureInfo(s)) })
    })
})

NodeRuntime.runMain(WorkerRunner.launch(Layer.provide(handlers, NodeWorkerRunner.layer)))
