import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { DocumentBookmarks } from "../../services/viewer/reader/DocumentBookmarks.ts"
import { DocumentSearch } from "../../services/viewer/reader/DocumentSearch.ts"
import { DocumentStates } from "../../services/viewer/reader/DocumentStates.ts"
import type { ViewerApi } from "./Api.ts"

export const ReaderHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "reader", (handlers) =>
    Effect.gen(function*() {
      const search = yield* DocumentSearch
      const bookmarks = yield* DocumentBookmarks
      const states = yield* DocumentStates
      return handlers
        .handle("search", ({ urlParams }) => search.search(urlParams))
        .handle("bookmarks", ({ urlParams }) => bookmarks.bookmarks(urlParams.uuid))
        .handle("documentState", ({ urlParams }) => states.state(urlParams.uuid))
    }))
