/**
 * POST /documents?documentUrl=...: fetched over HTTP from a real loopback server; private
 * addresses refused unless ALLOW_PRIVATE_URLS is set.
 */
import { afterAll, beforeAll, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { brokerTestLayer, BrokerUrl } from "../../../src/layers/Test.ts"
import { isPrivateAddress } from "../../../src/services/broker/documents/UrlFetcher.ts"
import { CORPUS, defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, upload } from "../../support/http.ts"

const pdf = corpusFile("pdf/basicapi.pdf")
let origin = ""
let server: Server
/** An HTTP/1.0 server as `python3 -m http.server` is: it sends the whole file and closes the connection. */
let closingOrigin = ""
let closingServer: TcpServer

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/files/report.pdf") {
      res.writeHead(200, { "content-type": "application/pdf" }).end(pdf)
    } else if (req.url === "/download?id=7") {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-disposition": "attachment; filename*=UTF-8''Quarterly%20r%C3%A9sum%C3%A9.pdf"
      }).end(pdf)
    } else if (req.url === "/quoted") {
      res.writeHead(200, {
        "content-type": "application/pdf",
        "content-disposition": `attachment; filename="Annual; \\"final\\".pdf"`
      }).end(pdf)
    } else if (req.url === "/broken-name") {
      // filename* whose escapes are not UTF-8: the plain filename is the fallback.
      res.writeHead(200, {
        "content-type": "application/pdf",
        "content-disposition": `attachment; filename*=UTF-8''%E0%A4%A.pdf; filename="fallback.pdf"`
      }).end(pdf)
    } else if (req.url === "/files/caf%E9.pdf") {
      res.writeHead(200, { "content-type": "application/pdf" }).end(pdf)
    } else if (req.url === "/moved") {
      res.writeHead(302, { location: "/files/report.pdf" }).end()
    } else {
      res.writeHead(404).end("no such file")
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const big = corpusFile("pdf/tracemonkey.pdf")
  closingServer = createTcpServer((socket) => {
    socket.once("data", () => {
      socket.write(`HTTP/1.0 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: ${big.length}\r\n\r\n`)
      socket.end(big)
    })
  })
  await new Promise<void>((resolve) => closingServer.listen(0, "127.0.0.1", resolve))
  closingOrigin = `http://127.0.0.1:${(closingServer.address() as AddressInfo).port}`
})
afterAll(() =>
  Promise.all([
    new Promise<void>((resolve) => server.close(() => resolve())),
    new Promise<void>((resolve) => closingServer.close(() => resolve()))
  ])
)

const fromUrl = (base: string, url: string, extra = "") =>
  upload(base, new Uint8Array(), `?documentUrl=${encodeURIComponent(url)}${extra}`)

describe("documentUrl", () => {
  it("tells private, loopback and link-local addresses from public ones", () => {
    for (
      const address of [
        "127.0.0.1",
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "0.0.0.0",
        "::1",
        "fe80::1",
        "fd00::1",
        "::ffff:127.0.0.1"
      ]
    ) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(address), address).toBe(false)
    }
  })

  layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("by default", (it) => {
    it.effect("refuses loopback and private addresses, and URLs that are not http(s)", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        for (
          const url of [
            `${origin}/files/report.pdf`,
            "http://localhost:1/x.pdf",
            "http://10.1.2.3/x.pdf",
            "http://[::1]/x.pdf",
            "file:///etc/passwd",
            "not a url"
          ]
        ) {
          const reply = yield* fromUrl(base, url)
          expect(reply.status, url).toBe(400)
          expect(reply.json.message, url).toBeTruthy()
        }
      }))
  })

  layer(brokerTestLayer({ ...defaultBackend.config, ALLOW_PRIVATE_URLS: "true" }), { timeout: 120_000 })(
    "with ALLOW_PRIVATE_URLS",
    (it) => {
      it.effect("fetches the document, follows redirects and takes the title from the server", () =>
        Effect.gen(function*() {
          const base = yield* BrokerUrl
          const plain = yield* fromUrl(base, `${origin}/files/report.pdf`)
          expect(plain.status).toBe(200)
          const metadata = yield* call(`${base}/documents/${plain.json.id}`)
          expect(metadata.json).toMatchObject({ documentTitle: "report.pdf", format: "pdf" })
          const file = yield* call(`${base}/documents/${plain.json.id}/file`)
          expect(Buffer.compare(Buffer.from(file.bytes), pdf)).toBe(0)

          const named = yield* fromUrl(base, `${origin}/download?id=7`)
          expect((yield* call(`${base}/documents/${named.json.id}`)).json.documentTitle).toBe("Quarterly résumé.pdf")
          const quoted = yield* fromUrl(base, `${origin}/quoted`)
          expect((yield* call(`${base}/documents/${quoted.json.id}`)).json.documentTitle).toBe(`Annual; "final".pdf`)
          const broken = yield* fromUrl(base, `${origin}/broken-name`)
          expect((yield* call(`${base}/documents/${broken.json.id}`)).json.documentTitle).toBe("fallback.pdf")
          // A path segment whose escapes are not UTF-8 is the title as written.
          const latin1 = yield* fromUrl(base, `${origin}/files/caf%E9.pdf`)
          expect((yield* call(`${base}/documents/${latin1.json.id}`)).json.documentTitle).toBe("caf%E9.pdf")
          const titled = yield* fromUrl(base, `${origin}/download?id=7`, "&documentTitle=Mine")
          expect((yield* call(`${base}/documents/${titled.json.id}`)).json.documentTitle).toBe("Mine")

          const moved = yield* fromUrl(base, `${origin}/moved`)
          expect(moved.status).toBe(200)
          // A server that closes the connection right after the body (HTTP/1.0): loaded, and the broker lives on.
          for (let i = 0; i < 3; i++) {
            const closing = yield* fromUrl(base, `${closingOrigin}/tracemonkey.pdf`)
            expect(closing.status, closing.text).toBe(200)
          }
          expect((yield* call(`${base}/health/readiness`)).status).toBe(200)

          // Allowed but not delivered: the server's fault, not the caller's.
          const missing = yield* fromUrl(base, `${origin}/nothing-here`)
          expect(missing.status).toBe(500)
          expect(missing.json.message).toContain("404")
        }))
    }
  )

  const officeDir = `${CORPUS}office`
  // Two more roots: a link to the office corpus (an allowed directory may be a link), and a directory
  // holding a link to a file outside every root (which must not open).
  const scratch = mkdtempSync(path.join(tmpdir(), "docstack-roots-"))
  const linkedRoot = path.join(scratch, "linked-office")
  symlinkSync(path.resolve(officeDir), linkedRoot)
  const rootWithEscape = path.join(scratch, "inbox")
  mkdirSync(rootWithEscape)
  symlinkSync(path.resolve(`${CORPUS}pdf/tracemonkey.pdf`), path.join(rootWithEscape, "escape.pdf"))
  const roots = [officeDir, linkedRoot, rootWithEscape].join(",")
  layer(brokerTestLayer({ ...defaultBackend.config, ALLOW_PRIVATE_URLS: "true", FILE_URL_ROOTS: roots }), {
    timeout: 120_000
  })("POST /accessor/load", (it) => {
    const load = (base: string, body: unknown) =>
      call(`${base}/accessor/load`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body)
      })

    it.effect("loads http(s) URLs and files inside FILE_URL_ROOTS as documents", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        const fromHttp = yield* load(base, { url: `${origin}/files/report.pdf` })
        expect(fromHttp.status).toBe(200)
        expect((yield* call(`${base}/documents/${fromHttp.json.id}`)).json).toMatchObject({
          documentTitle: "report.pdf",
          format: "pdf"
        })
        for (const url of [`file://${officeDir}/fake.odt`, `${officeDir}/fake.odt`, `${linkedRoot}/fake.odt`]) {
          const fromFile = yield* load(base, { url })
          expect(fromFile.status, url).toBe(200)
          expect((yield* call(`${base}/documents/${fromFile.json.id}`)).json).toMatchObject({
            documentTitle: "fake.odt",
            format: "odt"
          })
          expect((yield* call(`${base}/documents/${fromFile.json.id}/layout`)).json.pageDimensionsList.length)
            .toBeGreaterThan(0)
        }
      }))

    it.effect("an invalid accessor is a 400; an allowed address that does not deliver is a 500", () =>
      Effect.gen(function*() {
        const base = yield* BrokerUrl
        for (
          const body of [
            {},
            { url: 5 },
            { url: "" },
            { url: "not a url" },
            { url: "ftp://example.com/x.pdf" },
            { url: "file:///etc/passwd" },
            { url: `file://otherhost${officeDir}/fake.odt` },
            { url: `${officeDir}/../pdf/tracemonkey.pdf` },
            { url: `${rootWithEscape}/escape.pdf` },
            { url: "relative/path.pdf" }
          ]
        ) {
          const reply = yield* load(base, body)
          expect(reply.status, JSON.stringify(body)).toBe(400)
        }
        // A directory, a root included, is not a document.
        for (const url of [rootWithEscape, linkedRoot]) {
          const reply = yield* load(base, { url })
          expect(reply.status, url).toBe(400)
          expect(reply.json.message, url).toContain("is not a file")
        }
        for (
          const url of [`${officeDir}/no-such-file.docx`, `${origin}/nothing-here`, "http://127.0.0.1:65000/x.pdf"]
        ) {
          const reply = yield* load(base, { url })
          expect(reply.status, url).toBe(500)
          expect(reply.json.message, url).toBeTruthy()
        }
      }))
  })
})
