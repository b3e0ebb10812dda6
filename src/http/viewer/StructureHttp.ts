import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Sessions } from "../../services/viewer/sessions/Sessions.ts"
import { DocumentStructure } from "../../services/viewer/structure/DocumentStructure.ts"
import type { ViewerApi } from "./Api.ts"
import { makeCurrent } from "./SessionCookie.ts"

export const StructureHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "structure", (handlers) =>
    Effect.gen(function*() {
      const structure = yield* DocumentStructure
      const sessions = yield* Sessions
      return handlers
        // Opening a document's layout is opening it in the viewer: it becomes the session's current document.
        .handle("layout", ({ urlParams }) =>
          structure.layout(urlParams.uuid).pipe(
            Effect.tap(({ brokerId }) => makeCurrent(brokerId)),
            Effect.map(({ layout }) => layout),
            Effect.provideService(Sessions, sessions)
          ))
        .handle("flatLayout", ({ urlParams }) => structure.flatLayout(urlParams.uuid))
        .handle("pageContent", ({ urlParams }) => structure.pageContent(urlParams.uuid, urlParams.pagePosition))
    }))
