/**
 * Office files, text and HTML to PDF through a warm pool of LibreOffice instances (OfficeDriver:
 * one `office-driver.py` and its soffice each). Conversions wait in one queue for the next free
 * instance. An instance is replaced after OFFICE_CONVERSIONS_PER_INSTANCE conversions, when it
 * dies, when a conversion passes SOFFICE_CONVERSION_TIMEOUT and when the caller of a running
 * conversion is interrupted. See docs/office-conversion.md.
 */
import { Config, Deferred, Duration, Effect, Exit, Fiber, Queue, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { durationConfig } from "../../common/DurationConfig.ts"
import { type DriverReply, type DriverRequest, officeDrivers, secondsText } from "./OfficeDriver.ts"
import { OFFICE_FORMATS, type OfficeFormat } from "./OfficeFormats.ts"

// The formats are part of the service's contract: its callers (Converter, the tests, scripts/bench/office.ts)
// import them with it.
export { OFFICE_FORMATS, type OfficeFormat } from "./OfficeFormats.ts"

/** Why LibreOffice produced no PDF; `message` is a sentence for the person who sent the file. */
export class OfficeConversionFailed extends Schema.TaggedError<OfficeConversionFailed>()("OfficeConversionFailed", {
  reason: Schema.Literal("timeout", "password", "too-many-cells", "unreadable", "crashed"),
  message: Schema.String
}) {}

export const OfficeConverterConfig = Config.all({
  instances: Config.integer("OFFICE_INSTANCES").pipe(
    Config.withDefault(Math.max(1, Math.floor(availableParallelism() / 2)))
  ),
  startTimeout: durationConfig("OFFICE_START_TIMEOUT", Duration.seconds(60)),
  conversionsPerInstance: Config.integer("OFFICE_CONVERSIONS_PER_INSTANCE").pipe(Config.withDefault(200)),
  /** `soffice.conversion.timeout` in the spec. */
  conversionTimeout: durationConfig("SOFFICE_CONVERSION_TIMEOUT", Duration.seconds(120)),
  /** `excel.maximum.cell.count` in the spec; 0 turns the check off. */
  maxCells: Config.integer("EXCEL_MAXIMUM_CELL_COUNT").pipe(Config.withDefault(1_000_000)),
  soffice: Config.string("SOFFICE_PATH").pipe(Config.withDefault("soffice")),
  python: Config.string("OFFICE_PYTHON").pipe(Config.withDefault("/usr/bin/python3"))
})

interface Job {
  readonly id: number
  readonly format: OfficeFormat
  readonly input: string
  readonly output: string
  readonly result: Deferred.Deferred<void, OfficeConversionFailed>
  /** Completed when the caller is no longer waiting (interrupted). */
  readonly cancel: Deferred.Deferred<void>
  /** Completed when an instance is done with the job (LibreOffice killed, if it was cancelled). */
  readonly released: Deferred.Deferred<void>
  running: boolean
}

/** The job as the driver is asked it, with the import filters of its format. */
const driverRequest = (job: Job, maxCells: number | null): DriverRequest => {
  const spec = OFFICE_FORMATS[job.format]
  return {
    id: job.id,
    input: job.input,
    extension: spec.extension,
    filters: spec.filters,
    filterOptions: spec.filterOptions ?? null,
    output: job.output,
    maxCells,
    html: job.format === "html"
  }
}

type SlotStatus = "starting" | "idle" | "busy" | "down"

interface Slot {
  readonly index: number
  status: SlotStatus
  generation: number
  conversions: number
  pid: number | undefined
  lastError: string | undefined
}

/** What the caller hears when LibreOffice dies during its conversion. */
const DIED_CONVERTING = "LibreOffice stopped unexpectedly while converting the document"

const count = (n: number) => n.toLocaleString("en-US")

export class OfficeConverter extends Effect.Service<OfficeConverter>()("docstack/OfficeConverter", {
  scoped: Effect.gen(function*() {
    const config = yield* OfficeConverterConfig
    const instanceCount = Math.max(1, config.instances)
    const maxCells = config.maxCells > 0 ? config.maxCells : null

    // Profiles and input links live here; removed on shutdown (after every instance is stopped).
    const root = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "docstack-office-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const drivers = yield* officeDrivers(config)

    const jobs = yield* Queue.unbounded<Job>()
    yield* Effect.addFinalizer(() =>
      Queue.takeAll(jobs).pipe(
        Effect.flatMap((waiting) =>
          Effect.forEach(waiting, (job) =>
            Deferred.fail(
              job.result,
              new OfficeConversionFailed({ reason: "crashed", message: "The document converter is shutting down" })
            ))
        )
      )
    )

    const slots: Array<Slot> = Array.from({ length: instanceCount }, (_, index) => ({
      index: index + 1,
      status: "starting",
      generation: 0,
      conversions: 0,
      pid: undefined,
      lastError: undefined
    }))
    let nextJobId = 0

    const crashed = (message: string) => new OfficeConversionFailed({ reason: "crashed", message })
    const timedOut = new OfficeConversionFailed({
      reason: "timeout",
      message: `The conversion took longer than ${
        secondsText(config.conversionTimeout)
      } (SOFFICE_CONVERSION_TIMEOUT) and was stopped`
    })

    /**
     * The next job, or `{ other }` when `other` completes first. A job taken in that same instant
     * (the race's loser had already won its item) goes back to the queue instead of being lost.
     */
    const takeUnless = <A>(other: Effect.Effect<A>): Effect.Effect<Job | { readonly other: A }> =>
      Effect.raceWith(Queue.take(jobs), other, {
        onSelfDone: (exit, otherFiber) => Fiber.interrupt(otherFiber).pipe(Effect.zipRight(exit)),
        onOtherDone: (exit, takeFiber) =>
          Fiber.interrupt(takeFiber).pipe(
            Effect.flatMap((taken) => Exit.isSuccess(taken) ? Queue.offer(jobs, taken.value) : Effect.void),
            Effect.zipRight(exit),
            Effect.map((a) => ({ other: a }))
          )
      })

    const replyToResult = (job: Job, reply: DriverReply): Exit.Exit<void, OfficeConversionFailed> => {
      if (reply.ok) return Exit.void
      const label = OFFICE_FORMATS[job.format].label
      switch (reply.reason) {
        case "password":
          return Exit.fail(
            new OfficeConversionFailed({
              reason: "password",
              message: "The document is password-protected; it cannot be converted without its password"
            })
          )
        case "too-many-cells":
          return Exit.fail(
            new OfficeConversionFailed({
              reason: "too-many-cells",
              message: `The spreadsheet has ${count(reply.cells ?? 0)} used cells, more than the ${
                count(maxCells ?? 0)
              } allowed (EXCEL_MAXIMUM_CELL_COUNT)`
            })
          )
        case "unreadable":
          return Exit.fail(
            new OfficeConversionFailed({
              reason: "unreadable",
              message: `The file could not be read as ${label}: it is damaged or not in that format`
            })
          )
        case "crashed":
          // The driver exits after this answer (the details are logged where the instance is replaced).
          return Exit.fail(crashed(
            reply.detail.startsWith("the PDF export failed")
              ? "LibreOffice could not write the PDF"
              : DIED_CONVERTING
          ))
      }
    }

    /**
     * One instance from start to stop: serves jobs until it must be replaced, and says why.
     * The scope around it kills the process group.
     */
    const lifetime = (slot: Slot) =>
      Effect.gen(function*() {
        slot.generation++
        slot.status = "starting"
        slot.conversions = 0
        const dir = join(root, `instance-${slot.index}-${slot.generation}`)
        const { instance, startMs } = yield* drivers.start(`${slot.index}-${slot.generation}`, dir)
        slot.status = "idle"
        slot.pid = instance.sofficePid
        slot.lastError = undefined
        yield* Effect.logInfo(`LibreOffice instance ${slot.index} started`).pipe(
          Effect.annotateLogs({ instance: slot.index, generation: slot.generation, pid: instance.sofficePid, startMs })
        )

        /** One job on this instance; says why the instance must be replaced, if it must. */
        const serve = (job: Job) =>
          Effect.gen(function*() {
            if (yield* Deferred.isDone(job.cancel)) return undefined // its caller is gone already
            job.running = true
            slot.status = "busy"
            const outcome = yield* instance.request(driverRequest(job, maxCells)).pipe(
              Effect.mapError(() => crashed(DIED_CONVERTING)),
              Effect.timeoutFail({ duration: config.conversionTimeout, onTimeout: () => timedOut }),
              Effect.exit,
              Effect.raceFirst(Deferred.await(job.cancel).pipe(Effect.as("cancelled" as const)))
            )
            slot.status = "idle"
            if (outcome === "cancelled") {
              // Stop LibreOffice's work at once; the caller's interruption returns once it is gone.
              yield* instance.stop
              return "its conversion was cancelled"
            }
            if (Exit.isSuccess(outcome) && !outcome.value.ok && outcome.value.reason === "crashed") {
              yield* Effect.logWarning(`LibreOffice instance ${slot.index} failed: ${outcome.value.detail}`).pipe(
                Effect.annotateLogs({ instance: slot.index })
              )
            }
            const result = Exit.flatMap(outcome, (reply) => replyToResult(job, reply))
            yield* Deferred.done(job.result, result)
            slot.conversions++
            const failure = Exit.isFailure(result)
              ? (result.cause._tag === "Fail" ? result.cause.error : "defect")
              : undefined
            if (failure === "defect") return "a conversion failed unexpectedly"
            if (failure?.reason === "timeout") return "a conversion timed out"
            if (failure?.reason === "crashed") return `a conversion failed (${failure.message})`
            if (slot.conversions >= config.conversionsPerInstance) {
              return `it has done ${slot.conversions} conversions (OFFICE_CONVERSIONS_PER_INSTANCE)`
            }
            return undefined
          }).pipe(
            // Whatever happens (the pool shutting down included), the caller hears of it.
            Effect.onExit(() =>
              Deferred.fail(job.result, crashed("The document converter is shutting down")).pipe(
                Effect.zipRight(Deferred.succeed(job.released, undefined))
              )
            )
          )

        while (true) {
          // Taking a job and starting on it is one step for interruption: a taken job is never dropped.
          const step = yield* Effect.uninterruptibleMask((restore) =>
            restore(takeUnless(Deferred.await(instance.exited))).pipe(
              Effect.flatMap((next) =>
                "other" in next ? Effect.succeed(`it stopped while idle (${next.other})`) : restore(serve(next))
              )
            )
          )
          if (step !== undefined) return step
        }
      }).pipe(Effect.scoped)

    /** Keeps one slot of the pool running for the life of the service. */
    const supervise = (slot: Slot) =>
      Effect.gen(function*() {
        let failures = 0
        while (true) {
          const ended = yield* lifetime(slot).pipe(Effect.either)
          slot.pid = undefined
          if (ended._tag === "Right") {
            failures = 0
            slot.status = "starting"
            yield* Effect.logInfo(`Restarting LibreOffice instance ${slot.index}: ${ended.right}`).pipe(
              Effect.annotateLogs({ instance: slot.index })
            )
            continue
          }
          // Could not start: tried again after a growing pause. While no instance of the pool runs
          // at all, conversions must not wait for ever: those queued meanwhile fail.
          failures++
          slot.status = "down"
          slot.lastError = ended.left
          yield* Effect.logError(`LibreOffice instance ${slot.index} could not be started: ${ended.left}`).pipe(
            Effect.annotateLogs({ instance: slot.index, attempt: failures })
          )
          const until = Date.now() + Math.min(30_000, 500 * 2 ** Math.min(failures, 6))
          while (Date.now() < until) {
            const pause = Effect.sleep(Duration.millis(Math.max(0, until - Date.now())))
            if (!slots.every((s) => s.status === "down")) {
              yield* pause
              break
            }
            const next = yield* Effect.uninterruptibleMask((restore) =>
              restore(takeUnless(pause)).pipe(
                Effect.tap((next) => {
                  if ("other" in next) return Effect.void
                  // Another instance came up meanwhile: it gets the job (at the back of the queue).
                  if (!slots.every((s) => s.status === "down")) return Queue.offer(jobs, next)
                  return Deferred.fail(next.result, crashed(`LibreOffice could not be started (${ended.left})`)).pipe(
                    Effect.zipRight(Deferred.succeed(next.released, undefined))
                  )
                })
              )
            )
            if ("other" in next) break
          }
        }
      })

    for (const slot of slots) yield* Effect.forkScoped(supervise(slot))

    const convert = Effect.fn("OfficeConverter.convert")(function*(
      input: { readonly path: string; readonly format: OfficeFormat },
      outputPdfPath: string
    ) {
      if (!existsSync(input.path)) {
        return yield* new OfficeConversionFailed({ reason: "unreadable", message: "The file to convert is missing" })
      }
      // LibreOffice writes beside the target and the file is renamed once complete, so a stopped
      // conversion never leaves half a PDF under the final name.
      const partial = `${outputPdfPath}.${randomBytes(4).toString("hex")}.partial`
      const job: Job = {
        id: ++nextJobId,
        format: input.format,
        input: input.path,
        output: partial,
        result: yield* Deferred.make<void, OfficeConversionFailed>(),
        cancel: yield* Deferred.make<void>(),
        released: yield* Deferred.make<void>(),
        running: false
      }
      yield* Queue.offer(jobs, job)
      yield* Deferred.await(job.result).pipe(
        Effect.onInterrupt(() =>
          Deferred.succeed(job.cancel, undefined).pipe(
            // When LibreOffice is on it, return once it has been stopped.
            Effect.zipRight(Effect.suspend(() => job.running ? Deferred.await(job.released) : Effect.void)),
            Effect.timeout(Duration.seconds(10)),
            Effect.ignore
          )
        ),
        Effect.zipRight(Effect.try({
          try: () => renameSync(partial, outputPdfPath),
          catch: (error) => crashed(`The PDF could not be stored (${(error as Error).message})`)
        })),
        Effect.ensuring(Effect.sync(() => rmSync(partial, { force: true })))
      )
    })

    return {
      convert,
      /**
       * Liveness for the health probe, read from the instances' state (never queued behind a
       * conversion): fails only when no instance is running or starting, i.e. every one of them
       * failed its last start.
       */
      ping: Effect.suspend(() =>
        slots.some((s) => s.status !== "down")
          ? Effect.void
          : Effect.fail(crashed(`LibreOffice is not running: ${slots[0]!.lastError ?? "it could not be started"}`))
      ),
      /** Conversions running or waiting, per instance: 1 means every instance is busy. */
      load: Effect.suspend(() =>
        Queue.size(jobs).pipe(
          Effect.map((waiting) => (waiting + slots.filter((s) => s.status === "busy").length) / instanceCount)
        )
      ),
      /** The instances as they are now (for logs and diagnostics). */
      instances: Effect.sync(() =>
        slots.map((s) => ({
          instance: s.index,
          status: s.status,
          pid: s.pid,
          conversions: s.conversions,
          restarts: Math.max(0, s.generation - 1)
        }))
      )
    }
  })
}) {}
