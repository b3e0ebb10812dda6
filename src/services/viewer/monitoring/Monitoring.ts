/**
 * version, health/records, prometheus and weather: what the viewer reports about itself and its
 * rendition targets, and the changes to the target list (docs/viewer.md "Monitoring").
 */
import { Effect } from "effect"
import { createRequire } from "node:module"
import { TargetWeather } from "../../../schemas/viewer/Servlets.ts"
import { RenditionUnavailable } from "../../../schemas/viewer/ViewerErrors.ts"
import { ViewerMetrics } from "../metrics/ViewerMetrics.ts"
import { parseTargetList, TargetList } from "../targets/TargetList.ts"
import { Weather } from "../targets/Weather.ts"
import { healthPage, weatherPage } from "./MonitoringPages.ts"
import { TargetAvailability } from "./TargetAvailability.ts"

const PACKAGE_VERSION = (createRequire(import.meta.url)("../../../../package.json") as { version: string }).version

/** GET version: the package's version, and the Node.js release it runs on (what a support call asks next). */
export const VERSION_TEXT = `docstack-viewer ${PACKAGE_VERSION} (Node.js ${process.version})`

export class Monitoring extends Effect.Service<Monitoring>()("docstack/viewer/Monitoring", {
  effect: Effect.gen(function*() {
    const weather = yield* Weather
    const targets = yield* TargetList
    const availability = yield* TargetAvailability
    const metrics = yield* ViewerMetrics
    const startedAt = Date.now()

    /** POST/PUT weather: the body read, the list changed, and the new targets polled at once. */
    const changeTargets = (body: string, change: (urls: ReadonlyArray<string>) => Effect.Effect<void>) =>
      parseTargetList(body).pipe(Effect.flatMap(change), Effect.zipRight(weather.refresh), Effect.as("OK"))

    return {
      version: VERSION_TEXT,

      /** The page, or with `check=RENDITION` a 503 when no target is available (SELF answers the page regardless). */
      health: Effect.fn("Monitoring.health")(function*(check: "SELF" | "RENDITION", selfUrl: string) {
        const states = yield* weather.states
        if (check === "RENDITION" && !states.some((s) => s.available)) {
          return yield* new RenditionUnavailable({
            message: states.length === 0
              ? "No rendition target is configured"
              : `No rendition target is available: ${
                states.map((s) => `${s.url} (${s.error ?? "not answering"})`).join(", ")
              }`
          })
        }
        const rows = yield* Effect.forEach(
          states,
          (state) => Effect.map(availability.of(state.url), (counts) => ({ state, availability: counts }))
        )
        return healthPage({ url: selfUrl, version: PACKAGE_VERSION, startedAt }, rows, Date.now())
      }),

      weatherPage: Effect.map(weather.states, (states) => weatherPage(states, Date.now())),

      weatherJson: Effect.map(weather.states, (states) =>
        states.map((s) =>
          new TargetWeather({
            url: s.url,
            available: s.available,
            score: s.score,
            checkedAt: s.checkedAt === null ? null : new Date(s.checkedAt).toISOString(),
            error: s.error,
            latencyMs: s.latencyMs
          })
        )),

      replaceTargets: (body: string) => changeTargets(body, targets.replace),
      addTargets: (body: string) => changeTargets(body, targets.add),

      prometheus: Effect.map(metrics.exposition, (text) => ({ text, contentType: metrics.contentType }))
    }
  }),
  dependencies: [Weather.Default, TargetList.Default, TargetAvailability.Default, ViewerMetrics.Default]
}) {}
