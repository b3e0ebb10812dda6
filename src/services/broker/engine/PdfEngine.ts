/**
 * The PDF engine: a bounded pool of worker threads that does every piece of PDF work (page images,
 * text, outline, annotations, transformations, comparisons) off the event loop. It knows no
 * feature: each feature defines its requests (`Schema.TaggedRequest`, see PdfRequest.ts) and their
 * worker handlers beside them, and the worker entry that `PdfWorkerSetup` names runs them all.
 */
import * as NodeWorker from "@effect/platform-node/NodeWorker"
import * as Worker from "@effect/platform/Worker"
import type { WorkerError } from "@effect/platform/WorkerError"
import { Config, Context, Duration, Effect, Pool, type Schema } from "effect"
import { rmSync } from "node:fs"
import { availableParallelism } from "node:os"
import { Worker as WorkerThread } from "node:worker_threads"
import { durationConfig } from "../../common/DurationConfig.ts"
import { PdfOperationFailed, type RenderSettings } from "./PdfRequest.ts"
import { buildWorkerBundle } from "./WorkerBundle.ts"

/** Which worker the threads run, and what they are handed as `workerData` (each feature's settings under its name). */
export class PdfWorkerSetup extends Context.Tag("docstack/PdfWorkerSetup")<PdfWorkerSetup, {
  readonly entry: URL
  readonly settings: Readonly<Record<string, unknown>>
}>() {}

export const PdfEngineConfig = Config.all({
  workers: Config.integer("RENDER_WORKERS").pipe(Config.withDefault(availableParallelism())),
  concurrencyPerWorker: Config.integer("RENDER_CONCURRENCY_PER_WORKER").pipe(Config.withDefault(2)),
  /** Bytes of files each worker keeps parsed in pdf.js, which reads outline, destinations and annotations (WorkerDocuments.ts). */
  pdfjsDocumentBytesPerWorker: Config.integer("PDFJS_DOCUMENT_BYTES_PER_WORKER").pipe(
    Config.withDefault(128 * 1024 * 1024)
  ),
  /** Bytes of files each worker keeps open in PDFium, which draws page images (PdfiumDocuments.ts). */
  openDocumentBytesPerWorker: Config.integer("OPEN_DOCUMENT_BYTES_PER_WORKER").pipe(
    Config.withDefault(128 * 1024 * 1024)
  ),
  /** Bytes of pixel buffers each worker keeps between pages, so a page allocates none (PixelBuffers.ts). */
  pixelBufferBytesPerWorker: Config.integer("PIXEL_BUFFER_BYTES_PER_WORKER").pipe(
    Config.withDefault(32 * 1024 * 1024)
  ),
  /**
   * Threads libvips gives one image operation (a page's PNG, its filters). One: the workers already
   * encode several pages at once, and more threads a page cost CPU without making it sooner (Rasterizer.ts).
   */
  imageThreadsPerOperation: Config.integer("IMAGE_THREADS_PER_OPERATION").pipe(Config.withDefault(1)),
  timeout: durationConfig("RENDER_TIMEOUT", Duration.seconds(60)),
  /** Whole-document work of an order (a transformation's outputs, a comparison's pages, a text difference). */
  documentWorkTimeout: durationConfig("DOCUMENT_WORK_TIMEOUT", Duration.minutes(10)),
  maxImagePixels: Config.integer("MAX_IMAGE_PIXELS").pipe(Config.withDefault(60_000_000)),
  /** The JavaScript heap of one worker thread: a file that would take more ends that thread only. */
  workerHeapMb: Config.integer("RENDER_WORKER_HEAP_MB").pipe(Config.withDefault(1024)),
  /**
   * Threads beyond the first start on demand and end once unused this long (each holds about
   * 60-110 MB); the one that stays is replaced by a fresh one once unused this long after real work.
   */
  workerIdle: durationConfig("RENDER_WORKER_IDLE", Duration.seconds(60))
})

/** The engine's own settings for its threads (WorkerDocuments.ts, PdfiumDocuments.ts and Rasterizer.ts read them). */
export const engineWorkerSettings = PdfEngineConfig.pipe(
  Config.map((config) => ({
    pdfjsDocumentBytes: config.pdfjsDocumentBytesPerWorker,
    openDocumentBytes: config.openDocumentBytesPerWorker,
    pixelBufferBytes: config.pixelBufferBytesPerWorker,
    imageThreadsPerOperation: config.imageThreadsPerOperation
  }))
)

/** The WorkerError a ParseError of the platform's failure decoding carries, if that is what it is. */
const workerErrorIn = (error: unknown): { readonly cause?: unknown } | undefined => {
  const actual = (error as { issue?: { actual?: { _tag?: unknown; cause?: unknown } } }).issue?.actual
  return actual?._tag === "WorkerError" ? actual : undefined
}

/** Why a worker thread stopped, in words (Node says ERR_WORKER_OUT_OF_MEMORY for a heap that ran out). */
const stoppedBecause = (cause: unknown) => {
  const code = (cause as { code?: unknown } | undefined)?.code
  return code === "ERR_WORKER_OUT_OF_MEMORY"
    ? "it ran out of memory"
    : cause instanceof Error
    ? cause.message
    : "it stopped"
}

/** What a request answers: its success, or its declared failure (or PdfOperationFailed when the engine ran out of time). */
type Result<R> = R extends Schema.WithResult<infer A, infer _I, infer E, infer _EI, infer _R>
  ? Effect.Effect<A, Exclude<E, WorkerError> | PdfOperationFailed>
  : never

export class PdfEngine extends Effect.Service<PdfEngine>()("docstack/PdfEngine", {
  scoped: Effect.gen(function*() {
    const config = yield* PdfEngineConfig
    const setup = yield* PdfWorkerSetup
    const bundle = yield* Effect.acquireRelease(
      Effect.promise(() => buildWorkerBundle(setup.entry)),
      ({ folder }) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
    )
    let threadsRunning = 0
    let threadsStarted = 0
    // One thread always: the first request after a quiet hour finds it started, its page and text
    // code loaded and compiled by the health probes, instead of waiting 200-300 ms for a new one.
    const pool = yield* Worker.makePoolSerialized<Schema.TaggedRequest.All>({
      minSize: 1,
      maxSize: Math.max(1, config.workers),
      concurrency: Math.max(1, config.concurrencyPerWorker),
      timeToLive: config.workerIdle
    }).pipe(
      Effect.provideService(
        Worker.Spawner,
        () => {
          const thread = new WorkerThread(bundle.entry, {
            // The bundle is plain JavaScript: none of the parent's loader flags (tsx's, about 60 MB a thread).
            execArgv: [],
            workerData: setup.settings,
            resourceLimits: { maxOldGenerationSizeMb: config.workerHeapMb }
          })
          threadsRunning++
          threadsStarted++
          thread.once("exit", () => threadsRunning--)
          return thread
        }
      ),
      Effect.orDie
    )

    const capacity = Math.max(1, config.workers) * Math.max(1, config.concurrencyPerWorker)
    let inFlight = 0
    /** Of those, the requests other than health probes. */
    let requestsInFlight = 0
    /** Workers that have run a request other than a health probe: their memory grew with real documents. */
    const usedWorkers = new WeakSet<object>()
    let lastRequestEnded = Date.now()

    /**
     * The request on a worker of the pool. A worker whose thread stopped under it (out of memory on
     * a hostile file: Node ends that thread only) is replaced, and the request fails saying so; the
     * other requests go on. A message that would not cross to a worker is a bug (a defect).
     */
    const onWorker = <R extends Schema.TaggedRequest.All>(request: R, probe: boolean) =>
      Effect.scoped(Effect.gen(function*() {
        const worker = yield* pool.backing.get
        if (!probe) usedWorkers.add(worker)
        return yield* (worker.executeEffect(request) as unknown as Effect.Effect<unknown, { readonly _tag?: string }>)
          .pipe(
            Effect.catchIf((e) => e._tag === "ParseError", (e) => {
              // The platform decodes every failure with the request's failure schema, so a stopped
              // worker's WorkerError arrives as the ParseError of that decoding.
              const stopped = workerErrorIn(e)
              return stopped === undefined
                ? Effect.die(e)
                : Pool.invalidate(pool.backing, worker).pipe(
                  Effect.zipRight(
                    Effect.fail(
                      new PdfOperationFailed({
                        message: `The PDF engine's worker stopped on this request: ${stoppedBecause(stopped.cause)}`
                      })
                    )
                  )
                )
            })
          )
      }))

    /** Counted in the load and bounded by `timeout`. */
    const bounded = <R extends Schema.TaggedRequest.All>(
      request: R,
      timeout: Duration.Duration,
      probe = false
    ): Result<R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          inFlight++
          if (!probe) requestsInFlight++
        }),
        () => onWorker(request, probe),
        () =>
          Effect.sync(() => {
            inFlight--
            if (probe) return
            requestsInFlight--
            lastRequestEnded = Date.now()
          })
      ).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new PdfOperationFailed({ message: `The PDF engine took longer than ${Duration.format(timeout)}` })
        })
      ) as unknown as Result<R>

    /**
     * The pool's own idle rule ends threads beyond the one it keeps. This replaces that one once it
     * has done real work and then sat unused for RENDER_WORKER_IDLE: PDFium's memory never shrinks,
     * and a fresh thread holds about 50 MB where a used one can hold hundreds. The pool starts the
     * new thread at once; the next health probes load and compile its page and text code.
     */
    const idleMillis = Duration.toMillis(config.workerIdle)
    const replaceUsedThread = Effect.scoped(Effect.gen(function*() {
      const worker = yield* pool.backing.get
      if (usedWorkers.has(worker)) yield* Pool.invalidate(pool.backing, worker)
    })).pipe(Effect.ignore)
    const replaceWhenQuiet = Effect.suspend(() => {
      const quietFor = Date.now() - lastRequestEnded
      if (quietFor < idleMillis) return Effect.sleep(idleMillis - quietFor)
      // Taking a worker while a probe holds one, or while the pool is still ending the threads beyond
      // its first, could make the pool start one more: look again shortly.
      if (inFlight > 0 || threadsRunning > 1) return Effect.sleep(Duration.seconds(1))
      return Effect.zipRight(replaceUsedThread, Effect.sleep(idleMillis))
    })
    yield* replaceWhenQuiet.pipe(Effect.forever, Effect.forkScoped)

    return {
      maxImagePixels: config.maxImagePixels,
      /** How to draw a page as a descriptor says, within MAX_IMAGE_PIXELS. */
      renderSettings: (descriptor: Omit<RenderSettings, "maxPixels">): RenderSettings => ({
        width: descriptor.width,
        rotation: descriptor.rotation,
        filters: descriptor.filters,
        maxPixels: config.maxImagePixels
      }),
      timeout: config.timeout,
      /** Requests running or waiting, per request slot of the pool: 1 means every slot is busy. */
      load: Effect.sync(() => inFlight / capacity),
      /** Whether a request other than a health probe is running or waiting: work done ahead is done only when none is. */
      busy: Effect.sync(() => requestsInFlight > 0),
      /** Worker threads alive now: 1 at rest, up to RENDER_WORKERS under load. */
      threadsRunning: Effect.sync(() => threadsRunning),
      /** Worker threads started since the engine started (a replaced or trapped one counts its successor). */
      threadsStarted: Effect.sync(() => threadsStarted),
      /** A request about one page or one lookup: bounded by RENDER_TIMEOUT. */
      run: <R extends Schema.TaggedRequest.All>(request: R): Result<R> => bounded(request, config.timeout),
      /**
       * A health probe, as `run`, but it does not count as use: a fresh thread that has run only
       * probes is kept, and a probe does not keep a used thread from being replaced.
       */
      probe: <R extends Schema.TaggedRequest.All>(request: R): Result<R> => bounded(request, config.timeout, true),
      /** Whole-document work of an order (transformation outputs, comparisons, text difference): bounded by DOCUMENT_WORK_TIMEOUT. */
      runDocumentWork: <R extends Schema.TaggedRequest.All>(request: R): Result<R> =>
        bounded(request, config.documentWorkTimeout)
    }
  }),
  dependencies: [NodeWorker.layerManager]
}) {}
