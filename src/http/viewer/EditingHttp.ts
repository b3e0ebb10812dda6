import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { DocumentAnnotations } from "../../services/viewer/annotations/DocumentAnnotations.ts"
import { TextDifferences } from "../../services/viewer/comparing/TextDifferences.ts"
import { EditingOrders } from "../../services/viewer/orders/EditingOrders.ts"
import { Sessions } from "../../services/viewer/sessions/Sessions.ts"
import type { ViewerApi } from "./Api.ts"
import { sessionUser } from "./SessionCookie.ts"

export const EditingHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "editing", (handlers) =>
    Effect.gen(function*() {
      const annotations = yield* DocumentAnnotations
      const orders = yield* EditingOrders
      const differences = yield* TextDifferences
      const sessions = yield* Sessions
      /** Who writes: new annotations are the session's user's, when it has one (docs/viewer.md). */
      const author = sessionUser.pipe(Effect.provideService(Sessions, sessions))
      return handlers
        .handle("annotations", ({ urlParams }) => annotations.list(urlParams.uuid))
        .handle("createAnnotations", ({ payload, urlParams }) =>
          Effect.flatMap(author, (user) => annotations.create(urlParams.uuid, payload, user)))
        .handle("updateAnnotations", ({ payload, urlParams }) =>
          Effect.flatMap(author, (user) =>
            annotations.update(urlParams.uuid, payload, user)))
        .handle("deleteAnnotations", ({ payload, urlParams }) =>
          annotations.remove(urlParams.uuid, payload))
        .handle("annotationPolicy", ({ urlParams }) =>
          annotations.policy(urlParams.uuid))
        .handle("transformation", ({ payload }) => orders.transformation(payload))
        .handle("comparison", ({ urlParams }) => orders.comparison(urlParams))
        .handle("order", ({ urlParams }) => orders.status(urlParams))
        .handle("cancelOrder", ({ urlParams }) => Effect.as(orders.cancel(urlParams), "OK"))
        .handle("difference", ({ urlParams }) => differences.difference(urlParams.left, urlParams.right))
    }))
