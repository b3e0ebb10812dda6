/**
 * What the browser viewer says while a document cannot be shown yet or at all, in real headless
 * Chromium against a viewer and a broker on loopback: the conversion of an office file as it runs,
 * and a password-protected PDF inside an archive. A message, never a blank page.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { zipSync } from "fflate"
import { corpusFile } from "../support/http.ts"
import { servlet, viewerAndBroker } from "../viewer/support.ts"
import { openTab, pagePainted, SCREENSHOTS, uploaded, waitForEvent, withViewerTab } from "./viewer-tab.ts"

layer(viewerAndBroker(), { timeout: 240_000 })("the browser viewer's states", (it) => {
  it.scoped("shows the conversion's state while an office file converts, then its first page", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        // A long document: its conversion takes seconds, long enough for the state to be asked.
        const id = yield* uploaded("office/handbook-872p.docx")
        const tab = yield* openTab(chrome, base, `?uuid=${id}`)
        const message = tab.locator("docstack-viewer .message[role=status]")
        yield* Effect.promise(() =>
          tab.waitForFunction(() =>
            /Converting the document for viewing \((QUEUED|PROCESSING), \d+ s\)/.test(
              document.querySelector("docstack-viewer")!.shadowRoot!.querySelector(".message")?.textContent ?? ""
            )
          )
        )
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-converting.png` }))
        const loaded = yield* Effect.promise(() => waitForEvent(tab, "documentloaded", "true", 200_000))
        expect(loaded.detail.pageCount).toBeGreaterThan(100)
        yield* Effect.promise(() => pagePainted(tab, 1))
        expect(yield* Effect.promise(() => message.count())).toBe(0)
      })
    ))

  it.scoped("says a PDF inside an archive is protected by a password; the archive's other part opens", () =>
    withViewerTab((chrome, base) =>
      Effect.gen(function*() {
        const archive = zipSync({
          "locked.pdf": new Uint8Array(corpusFile("pdf/password.pdf")),
          "open.pdf": new Uint8Array(corpusFile("pdf/tracemonkey.pdf"))
        })
        const form = new FormData()
        form.append("file", new Blob([archive as Uint8Array<ArrayBuffer>]), "mixed.zip")
        const id = (yield* servlet("uploadServlet", { method: "POST", body: form })).text
        const tab = yield* openTab(chrome, base, `?uuid=${id}`)
        const failed = yield* Effect.promise(() => waitForEvent(tab, "error"))
        expect(failed.detail.kind).toBe("password")
        const alert = tab.locator("docstack-viewer .message[role=alert]")
        expect(yield* Effect.promise(() => alert.textContent())).toContain("protected by a password")
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/viewer-password.png` }))

        yield* Effect.promise(() => tab.locator("docstack-parts").getByText("open.pdf").click())
        yield* Effect.promise(() => pagePainted(tab, 1))
        expect(yield* Effect.promise(() => alert.count())).toBe(0)
      })
    ))
})
