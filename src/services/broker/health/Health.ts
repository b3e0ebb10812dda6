/**
 * Component health, readiness, versions and the load score. A background loop exercises each
 * component with a real request (render, text, conversion, SQL) every HEALTH_CHECK_INTERVAL;
 * readiness only reads the last result, so probes answer in microseconds.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect, Ref, Schedule } from "effect"
import { createRequire } from "node:module"
import { availableParallelism, loadavg } from "node:os"
import { PDFDocument, StandardFonts } from "pdf-lib"
import sharp from "sharp"
import { ComponentState, HealthRecords } from "../../../schemas/broker/Health.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import { StorageConfig } from "../../common/StorageConfig.ts"
import { OfficeConverter } from "../conversion/OfficeConverter.ts"
import { PDFIUM_PACKAGE_VERSION } from "../engine/PageEngine.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { RenderPage } from "../pages/PageRequests.ts"
import { ExtractText } from "../text/TextRequests.ts"

const require = createRequire(import.meta.url)
const versionOf = (pkg: string) => {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version
  } catch {
    return "unknown"
  }
}
export const BROKER_VERSION = (require("../../../../package.json") as { version: string }).version

export const COMPONENTS = ["document-converter", "document-renderer", "document-text-handler", "database"] as const
type Component = (typeof COMPONENTS)[number]

const makeProbePdf = Effect.promise(async () => {
  const pdf = await PDFDocument.create()
  const page = pdf.addPage([200, 100])
  page.drawText("health probe", { x: 20, y: 50, size: 12, font: await pdf.embedFont(StandardFonts.Helvetica) })
  return pdf.save()
})

export class Health extends Effect.Service<Health>()("docstack/Health", {
  scoped: Effect.gen(function*() {
    const interval = yield* durationConfig("HEALTH_CHECK_INTERVAL", Duration.seconds(5))
    const engine = yield* PdfEngine
    const office = yield* OfficeConverter
    const sql = yield* SqlClient.SqlClient
    const fs = yield* FileSystem.FileSystem
    const storage = yield* StorageConfig
    const startedAt = Date.now()

    const probeFile = yield* fs.makeTempFileScoped({ prefix: "docstack-probe-" }).pipe(Effect.orDie)
    const probeBytes = yield* makeProbePdf
    yield* fs.writeFile(probeFile, probeBytes).pipe(Effect.orDie)
    const probe = { hash: `probe-${Date.now()}`, path: probeFile }

    const checks: Record<Component, Effect.Effect<unknown, unknown>> = {
      // The LibreOffice pool: an instance alive and answering (a full conversion would queue behind real work).
      "document-converter": office.ping,
      "document-renderer": engine.probe(
        new RenderPage({ ...probe, page: 0, ...engine.renderSettings({ width: 40, rotation: 0, filters: [] }) })
      ),
      "document-text-handler": engine.probe(new ExtractText({ ...probe, page: 0 })).pipe(
        Effect.filterOrFail(
          (runs) => runs.includes("probe"),
          () => new Error("probe text not found")
        )
      ),
      database: sql`SELECT 1`
    }

    const states = yield* Ref.make<Record<string, ComponentState>>({})
    const everDown = new Set<Component>()

    const check = (name: Component) =>
      checks[name].pipe(
        // A probe waits behind real work in the render queue: only a pool stuck past the render
        // timeout is down, a busy one is not (readiness must not pull a server for being busy).
        Effect.timeout(Duration.max(Duration.times(interval, 2), engine.timeout)),
        Effect.match({
          onFailure: (error) => {
            everDown.add(name)
            return { name, state: new ComponentState({ serviceStatus: "DOWN", restarted: false }), error }
          },
          onSuccess: () => ({
            name,
            state: new ComponentState({ serviceStatus: "UP", restarted: everDown.has(name) }),
            error: undefined
          })
        }),
        Effect.tap(({ error, name }) =>
          error === undefined ? Effect.void : Effect.logWarning(`Health check of ${name} failed`, error)
        )
      )

    const runChecks = Effect.forEach(COMPONENTS, check, { concurrency: "unbounded" }).pipe(
      Effect.flatMap((results) => Ref.set(states, Object.fromEntries(results.map((r) => [r.name, r.state]))))
    )

    yield* runChecks.pipe(Effect.repeat(Schedule.spaced(interval)), Effect.forkScoped)

    const databaseKind = storage.databaseUrl._tag === "Some" ? "postgresql" : "pglite"
    const serverVersion = yield* sql<{ version: string }>`SELECT version()`.pipe(
      Effect.map((rows) => rows[0]?.version ?? "unknown"),
      Effect.orElseSucceed(() => "unknown")
    )

    return {
      records: Ref.get(states).pipe(Effect.map((serviceStates) => new HealthRecords({ serviceStates }))),
      /** Ready once every component has passed its latest check. */
      ready: Ref.get(states).pipe(
        Effect.map((s) => COMPONENTS.every((name) => s[name]?.serviceStatus === "UP"))
      ),
      versions: {
        broker: BROKER_VERSION,
        node: process.versions.node,
        effect: versionOf("effect"),
        "pdfjs-dist": versionOf("pdfjs-dist"),
        // Draws the page images; its package.json is not exported, so read where PageEngine finds it.
        "@embedpdf/pdfium": PDFIUM_PACKAGE_VERSION,
        "pdf-lib": versionOf("pdf-lib"),
        sharp: versionOf("sharp"),
        libvips: sharp.versions.vips,
        "@napi-rs/canvas": versionOf("@napi-rs/canvas"),
        database: `${databaseKind}: ${serverVersion}`
      } as Record<string, string>,
      metadata: Effect.sync(() =>
        ({
          "broker.version": BROKER_VERSION,
          "broker.uptime": String(Math.round((Date.now() - startedAt) / 1000)),
          "broker.startTime": new Date(startedAt).toISOString(),
          "broker.database": databaseKind
        }) as Record<string, string>
      ),
      /** Lower is better: busy render slots plus CPU load per core, each 0 when idle and about 1 when saturated. */
      weather: engine.load.pipe(Effect.map((load) => load + loadavg()[0]! / availableParallelism()))
    }
  }),
  dependencies: [PdfEngine.Default, OfficeConverter.Default]
}) {}
