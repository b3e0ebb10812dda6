/**
 * compositeAccessorServlet in front of a real broker and the reference provider, with encrypted
 * document IDs: a tree in one POST, a container built by GET and PUTs spread over two viewer
 * instances on one database, each seen through documentLayout and imageServlet; the 400s and 404s.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BrokerUrl } from "../../src/layers/Test.ts"
import { DocumentAccess } from "../../src/services/viewer/documents/DocumentAccess.ts"
import { makeProviderRoot } from "../broker/providers/support.ts"
import { call, corpusFile, pngSize, type Reply, uploadOk } from "../support/http.ts"
import { anotherViewer, servlet, viewerBrokerAndProvider } from "./support.ts"

const root = makeProviderRoot()
const ids = {
  VIEWER_DOCUMENT_ID_GENERATOR: "encryptedDocumentIdGenerator",
  VIEWER_DOCUMENT_ID_KEY: "composite-test-key-0123456789"
}
const post = (body: unknown) =>
  servlet("compositeAccessorServlet", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })

/** A container's layout: its title and, per child, its title (and its children's, for a folder). */
const titlesOf = (layout: any): unknown =>
  "children" in layout ? [layout.documentTitle, layout.children.map(titlesOf)] : layout.documentTitle

/** A child's page drawn 300 pixels wide through imageServlet. */
const pageImage = (viewerId: string, page: number) =>
  servlet(`imageServlet?uuid=${encodeURIComponent(viewerId.replaceAll("/", "@"))}&pagePosition=${page}&desc=300`)

const sessionOf = (reply: Reply) => /DOCSTACK_VIEWER_SESSION=([^;]+)/.exec(reply.headers.get("set-cookie") ?? "")?.[1]

describe("compositeAccessorServlet", () => {
  it.layer(
    viewerBrokerAndProvider(root, { ...ids, VIEWER_COMPOSITE_MAX_NODES: "12" }, { ALLOW_PRIVATE_URLS: "true" }),
    {
      timeout: 180_000
    }
  )((it) => {
    it.effect("POST: a tree of provider files, folders and an http URL, opened as the session's document", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const web = yield* uploadOk(broker, corpusFile("pdf/basicapi.pdf"))
        const created = yield* post({
          title: "Dossier 7",
          references: [
            { title: "Contract", queryUrl: "loadingQuery?id=case-42%2F1%20contract.pdf" },
            {
              title: "Letters",
              references: [{ title: "Reply", queryUrl: "loadingQuery?id=case-42/letters/reply.pdf" }]
            },
            // queryUrl wins over references.
            { title: "From the web", queryUrl: `${broker}/documents/${web}/file`, references: [{ queryUrl: "bad" }] },
            { queryUrl: "loadingQuery?id=tracemonkey.pdf" }
          ]
        })
        expect(created.status, created.text).toBe(200)
        const id = created.text
        expect(id).toMatch(/^b64_[\w-]+$/)
        const brokerId = yield* (yield* DocumentAccess).brokerId(id)
        const sql = yield* SqlClient.SqlClient
        const sessions = yield* sql`SELECT current_document FROM viewer_sessions WHERE id = ${sessionOf(created)!}`
        expect(sessions).toEqual([{ currentDocument: brokerId }])

        const layout = (yield* servlet(`documentLayout?uuid=${id}`)).json
        expect(layout.type).toMatch(/DocumentContainer$/)
        expect(titlesOf(layout)).toEqual(["Dossier 7", [
          "Contract",
          ["Letters", ["Reply"]],
          "From the web",
          "tracemonkey.pdf"
        ]])
        const reply = layout.children[1].children[0].documentId.id as string
        const image = yield* pageImage(reply, 4)
        expect(image.status).toBe(200)
        expect(pngSize(image.bytes).width).toBe(300)
        expect((yield* pageImage(reply, 5)).status).toBe(404)
        expect((yield* pageImage(layout.children[2].documentId.id, 2)).status).toBe(200)
      }))

    it.effect("POST: 400 naming each node at fault, and past VIEWER_COMPOSITE_MAX_NODES", () =>
      Effect.gen(function*() {
        const cases: ReadonlyArray<[unknown, string]> = [
          [{ title: "x" }, "neither queryUrl"],
          [{ references: [{ queryUrl: "ftp://example.com/a.pdf" }] }, "references[0]: 'ftp://example.com/a.pdf'"],
          [{ references: [{ queryUrl: "loadingQuery?" }] }, "names no document"],
          [{ references: [] }, "no document in it"],
          [{ references: [{ queryUrl: "loadingQuery?id=a" }, { references: [{ references: [] }] }] }, "references[1]"],
          [
            { references: Array.from({ length: 12 }, () => ({ queryUrl: "loadingQuery?id=a" })) },
            "VIEWER_COMPOSITE_MAX_NODES"
          ]
        ]
        for (const [body, message] of cases) {
          const reply = yield* post(body)
          expect(reply.status, JSON.stringify(body)).toBe(400)
          expect(reply.json.message, JSON.stringify(body)).toContain(message)
        }
        expect((yield* post({ queryUrl: "loadingQuery?id=tracemonkey.pdf" })).status).toBe(200)
      }))

    it.scoped("GET and PUTs spread over two instances: one container, its children in order, titled", () =>
      Effect.gen(function*() {
        const broker = yield* BrokerUrl
        const second = yield* anotherViewer({
          ...ids,
          RENDITION_TARGETS: broker,
          VIEWER_WEATHER_INTERVAL: "200 millis"
        })
        const on = (base: string | undefined, query: string, body?: string) => {
          const init = {
            method: "PUT",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: body ?? ""
          }
          return base === undefined
            ? servlet(`compositeAccessorServlet?${query}`, init)
            : call(`${base}/viewergwt/compositeAccessorServlet?${query}`, init)
        }
        const opened = yield* call(`${second}/viewergwt/compositeAccessorServlet?containerTitleComposite=Case%20file`)
        expect(opened.status).toBe(200)
        const id = encodeURIComponent(opened.text)
        const first = yield* on(
          undefined,
          `documentIdComposite=${id}&containerTitleComposite=First`,
          "loadingQuery?id=tracemonkey.pdf"
        )
        expect(first.status, first.text).toBe(200)
        const encoded = encodeURIComponent("loadingQuery?id=case-42/1 contract.pdf")
        const next = yield* on(
          second,
          `documentIdComposite=${id}&containerTitleComposite=Second&mimeTypeComposite=application/pdf`,
          encoded
        )
        expect(next.status, next.text).toBe(200)
        const done = yield* on(undefined, `documentIdComposite=${id}&final`)
        expect(done.status, done.text).toBe(200)
        expect(done.text).toBe(opened.text)

        const layout = (yield* call(`${second}/viewergwt/documentLayout?uuid=${id}`)).json
        expect(titlesOf(layout)).toEqual(["Case file", ["First", "Second"]])
        expect((yield* pageImage(layout.children[0].documentId.id, 13)).status).toBe(200)
        expect((yield* pageImage(layout.children[1].documentId.id, 2)).status).toBe(200)
        expect((yield* pageImage(layout.children[1].documentId.id, 3)).status).toBe(404)

        // Final again answers the same document; nothing can be added any more.
        expect((yield* on(second, `documentIdComposite=${id}&final`)).text).toBe(opened.text)
        const late = yield* on(second, `documentIdComposite=${id}`, "loadingQuery?id=tracemonkey.pdf")
        expect(late.status).toBe(400)
        expect(late.json.message).toContain("finalized")
      }))

    it.effect("PUT: 400 without a body or documentIdComposite, or final on an empty container; 404 for an unknown one", () =>
      Effect.gen(function*() {
        const put = (query: string, body = "") =>
          servlet(`compositeAccessorServlet?${query}`, {
            method: "PUT",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body
          })
        const id = encodeURIComponent((yield* servlet("compositeAccessorServlet")).text)
        expect((yield* put(`documentIdComposite=${id}`)).status).toBe(400)
        expect((yield* put("final", "loadingQuery?id=tracemonkey.pdf")).status).toBe(400)
        const bad = yield* put(`documentIdComposite=${id}`, "file:///etc/passwd")
        expect(bad.status).toBe(400)
        const empty = yield* put(`documentIdComposite=${id}&final`)
        expect(empty.status).toBe(400)
        expect(empty.json.message).toContain("holds no document")

        const unknown = encodeURIComponent((yield* DocumentAccess).ids.encode("b64_no-such-container"))
        const missing = yield* put(`documentIdComposite=${unknown}`, "loadingQuery?id=tracemonkey.pdf")
        expect(missing.status).toBe(404)
        expect(missing.json._tag).toBe("ContainerNotFound")
      }))
  })
})
