/**
 * The browser section's pdf.js side: a small node:http server on a loopback port serving a page
 * with pdf.js's PDFViewer component (pdfjs-page.ts, transformed by esbuild), the files of
 * node_modules/pdfjs-dist as they are (pdf.mjs, web/pdf_viewer.mjs and .css, the worker, cmaps,
 * standard fonts, wasm), and the benchmark's PDFs with range requests, as any static file server
 * would answer pdf.js (which asks for ranges of a large file rather than waiting for all of it).
 */
import { transformSync } from "esbuild"
import { createReadStream, readFileSync, statSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { dirname, extname, join, normalize } from "node:path"
import { fileURLToPath } from "node:url"

/** pdfjs-dist of this checkout: pdf.js is what we compare with, not code we measure. */
const PDFJS_DIR = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"))

export const pdfjsVersion = () =>
  (JSON.parse(readFileSync(join(PDFJS_DIR, "package.json"), "utf8")) as { version: string }).version

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".gif": "image/gif",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".pdf": "application/pdf"
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>pdf.js PDFViewer</title>
<link rel="stylesheet" href="/pdfjs/web/pdf_viewer.css">
<style>
  html, body { margin: 0; height: 100%; }
  /* PDFViewer requires an absolutely positioned container. */
  #viewerContainer { position: absolute; inset: 0; overflow: auto; }
</style>
<script type="module" src="/page.mjs"></script>
</head>
<body>
<div id="viewerContainer"><div id="viewer" class="pdfViewer"></div></div>
</body>
</html>
`

export interface PdfjsServer {
  readonly baseUrl: string
  /** The page showing `name` (a file given to startPdfjsServer). */
  pageUrl(name: string): string
  close(): Promise<void>
}

const sendFile = (request: IncomingMessage, response: ServerResponse, path: string) => {
  const size = statSync(path).size
  const headers = {
    "content-type": TYPES[extname(path)] ?? "application/octet-stream",
    "accept-ranges": "bytes",
    "cache-control": "no-cache"
  }
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? "")
  if (range === null) {
    response.writeHead(200, { ...headers, "content-length": size })
    createReadStream(path).pipe(response)
    return
  }
  const start = range[1] === "" ? Math.max(0, size - Number(range[2])) : Number(range[1])
  const end = range[1] === "" || range[2] === "" ? size - 1 : Math.min(size - 1, Number(range[2]))
  if (start > end || start >= size) {
    response.writeHead(416, { ...headers, "content-range": `bytes */${size}` }).end()
    return
  }
  response.writeHead(206, {
    ...headers,
    "content-length": end - start + 1,
    "content-range": `bytes ${start}-${end}/${size}`
  })
  createReadStream(path, { start, end }).pipe(response)
}

/** Serves the pdf.js page and `pdfs` (file name → path) on a free loopback port. */
export const startPdfjsServer = async (pdfs: Readonly<Record<string, string>>): Promise<PdfjsServer> => {
  const pageScript = transformSync(
    readFileSync(fileURLToPath(new URL("pdfjs-page.ts", import.meta.url)), "utf8"),
    { loader: "ts", format: "esm", target: "es2022" }
  ).code
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://localhost").pathname
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405).end()
    } else if (path === "/") {
      response.writeHead(200, { "content-type": TYPES[".html"]! }).end(PAGE)
    } else if (path === "/page.mjs") {
      response.writeHead(200, { "content-type": TYPES[".mjs"]! }).end(pageScript)
    } else if (path.startsWith("/pdf/") && pdfs[decodeURIComponent(path.slice(5))] !== undefined) {
      sendFile(request, response, pdfs[decodeURIComponent(path.slice(5))]!)
    } else if (path.startsWith("/pdfjs/")) {
      const file = normalize(join(PDFJS_DIR, decodeURIComponent(path.slice(7))))
      const found = file.startsWith(PDFJS_DIR + "/") && statSync(file, { throwIfNoEntry: false })?.isFile()
      if (found) sendFile(request, response, file)
      else response.writeHead(404).end()
    } else {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", resolve)
  })
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    baseUrl,
    pageUrl: (name) => `${baseUrl}/?file=${encodeURIComponent(`/pdf/${name}`)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
