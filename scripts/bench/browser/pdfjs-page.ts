/**
 * The browser section's pdf.js page (run in the browser, served by pdfjs-server.ts): pdf.js's own
 * PDFViewer component as its examples/components/simpleviewer sets it up, with the options pdf.js's
 * viewer gives getDocument by default (AppOptions of kind API) and the scale page-width, loading
 * `?file=` from the same server. It tells the probe (probe.ts, installed before this runs) what a
 * viewer must: each page painted, the page count, how to go to a page, the scrolling container.
 */
import type * as PdfjsLib from "pdfjs-dist"
import type * as PdfjsViewer from "pdfjs-dist/web/pdf_viewer.mjs"
import type { BenchViewer, Probe } from "./probe.ts"

// URLs, not packages: the browser loads pdfjs-dist's own files from the server, unbundled.
const LIB_URL = "/pdfjs/build/pdf.mjs"
const VIEWER_URL = "/pdfjs/web/pdf_viewer.mjs"

const probe = (window as unknown as { __bench: Probe }).__bench
// pdf_viewer.mjs reads the library from globalThis.pdfjsLib, which pdf.mjs sets: load it first.
const lib = (await import(LIB_URL)) as typeof PdfjsLib
const viewerModule = (await import(VIEWER_URL)) as typeof PdfjsViewer

lib.GlobalWorkerOptions.workerSrc = "/pdfjs/build/pdf.worker.mjs"
const container = document.getElementById("viewerContainer") as HTMLDivElement
const eventBus = new viewerModule.EventBus()
const linkService = new viewerModule.PDFLinkService({ eventBus })
const findController = new viewerModule.PDFFindController({ eventBus, linkService })
const viewer = new viewerModule.PDFViewer({
  container,
  eventBus,
  linkService,
  findController,
  imageResourcesPath: "/pdfjs/web/images/"
})
linkService.setViewer(viewer)

eventBus.on("pagesinit", () => {
  viewer.currentScaleValue = "page-width"
})
// A page re-laid out by a CSS transform alone (cssTransform) or failed was not painted.
eventBus.on("pagerendered", (event: { pageNumber: number; cssTransform?: boolean; error?: unknown }) => {
  if (event.cssTransform === true || event.error) return
  const view = viewer.getPageView(event.pageNumber - 1) as { width?: number } | undefined
  probe.painted(event.pageNumber, view?.width ?? Number.NaN)
})

const file = new URLSearchParams(location.search).get("file") ?? ""
// enableWebGPU is read by getDocument (pdf.js 5.6) but missing from its types.
const documentParams = {
  url: file,
  cMapUrl: "/pdfjs/cmaps/",
  cMapPacked: true,
  iccUrl: "/pdfjs/iccs/",
  standardFontDataUrl: "/pdfjs/standard_fonts/",
  wasmUrl: "/pdfjs/wasm/",
  enableHWA: true,
  enableWebGPU: true,
  enableXfa: true
}
const pdf = await lib.getDocument(documentParams).promise
viewer.setDocument(pdf)
linkService.setDocument(pdf, null)

const benchViewer: BenchViewer = {
  container,
  pageCount: pdf.numPages,
  // Above 10,000 pages pdf.js forces ScrollMode.PAGE (3): its container then holds one page.
  onePageAtATime: () => viewer.scrollMode === viewerModule.ScrollMode.PAGE,
  goToPage: (pageNumber) => {
    viewer.currentPageNumber = pageNumber
  }
}
probe.attach(benchViewer)
