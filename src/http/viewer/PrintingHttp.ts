import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Printing } from "../../services/viewer/printing/Printing.ts"
import type { ViewerApi } from "./Api.ts"

const html = (text: string) =>
  HttpServerResponse.text(text, { contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })

export const PrintingHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "printing", (handlers) =>
    Effect.gen(function*() {
      const printing = yield* Printing
      return handlers
        .handle("preview", ({ urlParams: { desc, imagePrintStyle, pages, uuid } }) =>
          Effect.map(printing.preview(uuid, desc, pages, imagePrintStyle), html))
        .handle("pages", ({ urlParams: { browserPrintWidth, nbPages, page, renditionPrintWidth, uuid } }) =>
          Effect.map(printing.printPages(uuid, nbPages, renditionPrintWidth, browserPrintWidth, page), html))
    }))
