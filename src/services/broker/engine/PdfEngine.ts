/**
 * Everything read from a PDF: page boxes, page images, text, outline, destinations, signature
 * fields. The work runs in a bounded pool of worker threads so the event loop stays free.
 */
import { Worker } from "@effect/platform"
import type { WorkerError } from "@effect/platform/WorkerError"
import { NodeWorker } from "@effect/platform-node"
import { Config, Duration, Effect } from "effect"
import { rmSync } from "node:fs"
import { availableParallelism } from "node:os"
import { Worker as WorkerThread } from "node:worker_threads"
import type { SearchOptions } from "../../../schemas/broker/Content.ts"
import type { PageImageDescriptor } from "../../../schemas/broker/PageImage.ts"
import type { PdfWorkerOptions } from "./PdfWorker.ts"
import {
  Analyze,
  ExtractText,
  PdfOperationFailed,
  type PdfRequest,
  ReadDestinations,
  Compare,
  DiffText,
  ReadAnnotations,
  ReadOutline,
  VerifySignatures,
  RenderPage,
  SearchPages,
  Transform
} from "./Protocol.ts"
import { buildWorkerBundle } from "./WorkerBundle.ts"
import { durationConfig } from "../../common/DurationConfig.ts"

/** A PDF as the engine sees it: its content hash (cache key) and a local file with its bytes. */
export interface PdfSource {
  readonly hash: string
  readonly path: string
}

export const PdfEngineConfig = Config.all({
  workers: Config.integer("RENDER_WORKERS").pipe(Config.withDefault(availableParallelism())),
  concurrencyPerWorker: Config.integer("RENDER_CONCURRENCY_PER_WORKER").pipe(Config.withDefault(2)),
  openDocumentsPerWorker: Config.integer("OPEN_DOCUMENTS_PER_WORKER").pipe(Config.withDefault(8)),
  timeout: durationConfig("RENDER_TIMEOUT", Duration.seconds(60)),
  /** Whole-document work of an order (a transformation's outputs, a comparison's pages, a text difference). */
  documentWorkTimeout: durationConfig("DOCUMENT_WORK_TIMEOUT", Duration.minutes(10)),
  redactionTimeout: durationConfig("REDACTION_TIMEOUT", Duration.minutes(2)),
  maxImagePixels: Config.integer("MAX_IMAGE_PIXELS").pipe(Config.withDefault(60_000_000)),
  /** PEM files (or directories of them) whose certificates signatures are trusted to chain to. */
  trustStore: Config.array(Config.string(), "SIGNATURE_TRUST_STORE").pipe(Config.withDefault(["/etc/ssl/certs/ca-certificates.crt"]))
})

export class PdfEngine extends Effect.Service<PdfEngine>()("docstack/PdfEngine", {
  scoped: Effect.gen(function*() {
    const config = yield* PdfEngineConfig
    const workerOptions: PdfWorkerOptions = {
      openDocuments: config.openDocumentsPerWorker,
      trustStore: config.trustStore,
      redactionTimeoutMs: Duration.toMillis(config.redactionTimeout)
    }
    const bundle = yield* Effect.acquireRelease(
      Effect.promise(buildWorkerBundle),
      (file) => Effect.sync(() => rmSync(file, { force: true }))
    )
    const pool = yield* Worker.makePoolSerialized<PdfRequest>({
      size: Math.max(1, config.workers),
      concurrency: Math.max(1, config.concurrencyPerWorker)
    }).pipe(
      Effect.provideService(
        Worker.Spawner,
        () => new WorkerThread(bundle, { workerData: workerOptions })
      ),
      Effect.orDie
    )

    const capacity = Math.max(1, config.workers) * Math.max(1, config.concurrencyPerWorker)
    let inFlight = 0

    return {
      maxImagePixels: config.maxImagePixels,
      timeout: config.timeout,
      /** Requests running or waiting, per request slot of the pool: 1 means every slot is busy. */
      load: Effect.sync(() => inFlight / capacity),
      /** Page boxes and information of a PDF, and its first page rendered with `firstPage`. */
      analyze: Effect.fn("PdfEngine.analyze")((source: PdfSource, firstPage: PageImageDescriptor) =>
        pool.executeEffect(new Analyze({ ...source, firstPage: renderSettings(firstPage) })).pipe(withLimits)
      ),
      renderPage: Effect.fn("PdfEngine.renderPage")((source: PdfSource, page: number, descriptor: PageImageDescriptor) =>
        pool.executeEffect(new RenderPage({ ...source, page, ...renderSettings(descriptor) })).pipe(withLimits)
      ),
      text: Effect.fn("PdfEngine.text")((source: PdfSource, page: number) => pool.executeEffect(new ExtractText({ ...source, page })).pipe(withLimits)),
      search: Effect.fn("PdfEngine.search")((source: PdfSource, fromPage: number, toPage: number, options: SearchOptions) =>
        pool.executeEffect(new SearchPages({ ...source, fromPage, toPage, options })).pipe(withLimits)
      ),
      outline: Effect.fn("PdfEngine.outline")((source: PdfSource) => pool.executeEffect(new ReadOutline(source)).pipe(withLimits)),
      destinations: Effect.fn("PdfEngine.destinations")((source: PdfSource) => pool.executeEffect(new ReadDestinations(source)).pipe(withLimits)),
      signatures: Effect.fn("PdfEngine.signatures")((source: PdfSource) => pool.executeEffect(new VerifySignatures(source)).pipe(withLimits)),
      annotations: Effect.fn("PdfEngine.annotations")((source: PdfSource) => pool.executeEffect(new ReadAnnotations(source)).pipe(withLimits)),
      /** Whole-document work (transformations, comparisons): bounded by DOCUMENT_WORK_TIMEOUT, not RENDER_TIMEOUT. */
      transform: Effect.fn("PdfEngine.transform")((request: ConstructorParameters<typeof Transform>[0]) =>
        pool.executeEffect(new Transform(request)).pipe(withDocumentLimits)
      ),
      compare: Effect.fn("PdfEngine.compare")((request: ConstructorParameters<typeof Compare>[0]) =>
        pool.executeEffect(new Compare(request)).pipe(withDocumentLimits)
      ),
      diffText: Effect.fn("PdfEngine.diffText")((left: PdfSource, right: PdfSource) =>
        pool.executeEffect(new DiffText({ left, right })).pipe(withDocumentLimits)
      )
    }

    function renderSettings(descriptor: PageImageDescriptor) {
      return { width: descriptor.width, rotation: descriptor.rotation, filters: descriptor.filters, maxPixels: config.maxImagePixels }
    }

    /** Bounded by RENDER_TIMEOUT: a request about one page or one lookup. */
    function withLimits<A, E>(effect: Effect.Effect<A, E | WorkerError>) {
      return bounded(effect, config.timeout)
    }

    /** Bounded by DOCUMENT_WORK_TIMEOUT: whole-document work of an order. */
    function withDocumentLimits<A, E>(effect: Effect.Effect<A, E | WorkerError>) {
      return bounded(effect, config.documentWorkTimeout)
    }

    /** Counted in the load and bounded by `timeout`; a worker that crashed or could not start is a broken engine, not a bad document (a defect). */
    function bounded<A, E>(effect: Effect.Effect<A, E | WorkerError>, timeout: Duration.Duration) {
      return Effect.acquireUseRelease(Effect.sync(() => inFlight++), () => effect, () => Effect.sync(() => inFlight--)).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new PdfOperationFailed({ message: `The PDF engine took longer than ${Duration.format(timeout)}` })
        }),
        Effect.catchIf((e: E | WorkerError | PdfOperationFailed) => (e as { _tag?: string })._tag === "WorkerError", Effect.die)
      ) as Effect.Effect<A, Exclude<E, WorkerError> | PdfOperationFailed>
    }
  }),
  dependencies: [NodeWorker.layerManager]
}) {}
