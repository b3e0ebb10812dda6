import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Conversions } from "../../services/broker/documents/Conversions.ts"
import { BrokerApi } from "./Api.ts"

export const ConversionsHttpLive = HttpApiBuilder.group(BrokerApi, "conversions", (handlers) =>
  Effect.gen(function*() {
    const conversions = yield* Conversions
    return handlers
      .handle("request", ({ payload }) => conversions.request(payload.documentId, payload.format))
      .handle("list", () => conversions.list)
      .handle("get", ({ path }) => conversions.get(path.conversionOrderId))
      .handle("remove", ({ path }) => conversions.remove(path.conversionOrderId))
      .handle("removeAll", () => conversions.removeAll)
  }))
