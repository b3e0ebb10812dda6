import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Transformations } from "../../services/broker/transformations/Transformations.ts"
import { BrokerApi } from "./Api.ts"

export const TransformationsHttpLive = HttpApiBuilder.group(
  BrokerApi,
  "transformations",
  (handlers) =>
    Effect.gen(function*() {
      const transformations = yield* Transformations
      return handlers
        .handle("request", ({ payload }) => transformations.request(payload))
        .handle("list", () => transformations.list)
        .handle("get", ({ path, urlParams }) => transformations.get(path.transformationOrderId, urlParams.timeoutMs))
        .handle("remove", ({ path }) => transformations.remove(path.transformationOrderId))
        .handle("removeAll", () => transformations.removeAll)
    })
)
