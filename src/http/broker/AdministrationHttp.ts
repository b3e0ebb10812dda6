import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { Health } from "../../services/broker/health/Health.ts"
import { BrokerApi, BrokerNotReady } from "./Api.ts"
import { healthPage } from "./HealthPage.ts"

const adminPage = readFileSync(new URL("../../../web/admin.html", import.meta.url), "utf8")

export const AdministrationHttpLive = HttpApiBuilder.group(
  BrokerApi,
  "administration",
  (handlers) =>
    Effect.gen(function*() {
      const health = yield* Health
      return handlers
        .handle("readiness", () =>
          health.ready.pipe(
            Effect.filterOrFail((ready) => ready, () =>
              new BrokerNotReady({
                message: "A component has not passed its latest health check; see /health/records"
              })),
            Effect.asVoid
          ))
        .handle("healthRecords", () => health.records.pipe(Effect.map((records) => healthPage(records, new Date()))))
        .handle("healthRecordsRaw", () => health.records)
        .handle("version", () => Effect.succeed(health.versions))
        .handle("metadata", () => health.metadata)
        .handle("weather", () => health.weather.pipe(Effect.map((score) => score.toFixed(3))))
        .handle("admin", () => Effect.succeed(adminPage))
    })
)
