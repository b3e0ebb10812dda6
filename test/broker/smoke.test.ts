import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { BrokerUrl, brokerTestLayer } from "../../src/layers/Test.ts"
import { CORPUS, defaultBackend } from "../support/backends.ts"

layer(brokerTestLayer(defaultBackend.config), { timeout: 120_000 })("broker smoke", (it) => {
  it.effect("uploads a PDF and serves its layout and first page", () =>
    Effect.gen(function*() {
      const base = yield* BrokerUrl
      const body = readFileSync(`${CORPUS}pdf/tracemonkey.pdf`)
      const upload = yield* Effect.promise(() =>
        fetch(`${base}/documents`, { method: "POST", headers: { "content-type": "application/octet-stream" }, body })
      )
      expect(upload.status).toBe(200)
      const { id } = (yield* Effect.promise(() => upload.json())) as { id: string }
      const layout = (yield* Effect.promise(() => fetch(`${base}/documents/${id}/layout`).then((r) => r.json()))) as { pageDimensionsList: Array<unknown> }
      expect(layout.pageDimensionsList).toHaveLength(14)
      const image = yield* Effect.promise(() => fetch(`${base}/documents/${id}/pages/0/image?pageImageDescription=IM_500_0`))
      expect(image.headers.get("content-type")).toBe("image/png")
    }))
})

