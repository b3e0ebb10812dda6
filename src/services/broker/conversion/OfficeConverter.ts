/**
 * Office files, text and HTML to PDF through a warm pool of LibreOffice instances.
 *
 * Each instance is one `office-driver.py` (python3-uno) that starts its own soffice on a private
 * profile and UNO pipe, and converts one document at a time on JSON-line requests. The driver runs
 * in a process group of its own: stopping an instance kills the group, and when this process dies
 * however abruptly the driver sees its stdin close and kills soffice. Conversions wait in one queue
 * for the next free instance. An instance is replaced after OFFICE_CONVERSIONS_PER_INSTANCE
 * conversions, when it dies, when a conversion passes SOFFICE_CONVERSION_TIMEOUT and when the
 * caller of a running conversion is interrupted. See docs/office-conversion.md.
 */
import { Config, Deferred, Duration, Effect, Exit, Fiber, FiberId, Queue, Schema } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath, pathToFileURL } from "node:url"
import { durationConfig } from "../../common/DurationConfig.ts"

export type OfficeFormat =
  | "doc"
  | "docx"
  | "odt"
  | "rtf"
  | "xls"
  | "xlsx"
  | "ods"
  | "csv"
  | "ppt"
  | "pptx"
  | "odp"
  | "html"
  | "text"

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

interface FormatSpec {
  /** Extension of the link the blob is loaded through. */
  readonly extension: string
  /** Import filters tried in order (the first that accepts the file wins); never type detection. */
  readonly filters: ReadonlyArray<string>
  readonly filterOptions?: string
  /** For messages: "could not be read as …". */
  readonly label: string
}

/** Which LibreOffice import filter reads which format; the PDF export follows the kind of document loaded. */
export const OFFICE_FORMATS: Readonly<Record<OfficeFormat, FormatSpec>> = {
  doc: {
    extension: "doc",
    filters: ["MS Word 97", "MS Word 95", "MS WinWord 6.0", "Rich Text Format"],
    label: "a Word document (.doc)"
  },
  docx: { extension: "docx", filters: ["MS Word 2007 XML", "Office Open XML Text"], label: "a Word document (.docx)" },
  odt: { extension: "odt", filters: ["writer8"], label: "an OpenDocument text (.odt)" },
  rtf: { extension: "rtf", filters: ["Rich Text Format"], label: "an RTF document" },
  xls: {
    extension: "xls",
    filters: ["MS Excel 97", "MS Excel 95", "MS Excel 5.0/95", "MS Excel 4.0"],
    label: "an Excel workbook (.xls)"
  },
  xlsx: {
    extension: "xlsx",
    filters: ["Calc MS Excel 2007 XML", "Calc Office Open XML"],
    label: "an Excel workbook (.xlsx)"
  },
  ods: { extension: "ods", filters: ["calc8"], label: "an OpenDocument spreadsheet (.ods)" },
  // Comma separated, double quotes, UTF-8 (76), from line 1.
  csv: { extension: "csv", filters: ["Text - txt - csv (StarCalc)"], filterOptions: "44,34,76,1", label: "a CSV file" },
  ppt: { extension: "ppt", filters: ["MS PowerPoint 97"], label: "a PowerPoint presentation (.ppt)" },
  pptx: {
    extension: "pptx",
    filters: ["Impress MS PowerPoint 2007 XML", "Impress Office Open XML"],
    label: "a PowerPoint presentation (.pptx)"
  },
  odp: { extension: "odp", filters: ["impress8"], label: "an OpenDocument presentation (.odp)" },
  // Writer's HTML import (not Writer/Web), so the page paginates like a document.
  html: { extension: "html", filters: ["HTML (StarWriter)"], label: "an HTML page" },
  // UTF-8, monospace, in Writer's default page size.
  text: {
    extension: "txt",
    filters: ["Text (encoded)"],
    filterOptions: "UTF8,LF,Liberation Mono,en-US",
    label: "a text file"
  }
}

const DRIVER = fileURLToPath(new URL("./office-driver.py", import.meta.url))

type DriverReply =
  | { readonly id: number; readonly ok: true; readonly ms: number; readonly kind: string }
  | {
    readonly id: number
    readonly ok: false
    readonly reason: "password" | "unreadable" | "too-many-cells" | "crashed"
    readonly detail: string
    readonly cells?: number
  }

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

/** One running driver + soffice. */
interface Instance {
  readonly pid: number
  readonly sofficePid: number
  readonly exited: Deferred.Deferred<string>
  readonly request: (job: Job, maxCells: number | null) => Effect.Effect<DriverReply, OfficeConversionFailed>
  /** Stops LibreOffice at once and waits until it is gone. */
  readonly stop: Effect.Effect<void>
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

/**
 * The socket files soffice leaves in /tmp when killed (the driver removes them too): the UNO pipe,
 * and the single-instance pipe named after the MD5 of the profile URL (UTF-16LE, unpadded hex bytes).
 */
const ipcPipeFiles = (profile: string, pipe: string) => {
  const uid = process.getuid?.() ?? 0
  const digest = [...createHash("md5").update(Buffer.from(pathToFileURL(profile).href, "utf16le")).digest()].map((b) =>
    b.toString(16)
  ).join("")
  return [`/tmp/OSL_PIPE_${uid}_${pipe}`, `/tmp/OSL_PIPE_${uid}_SingleOfficeIPC_${digest}`]
}

const count = (n: number) => n.toLocaleString("en-US")
const secondsText = (d: Duration.Duration) => {
  const s = Duration.toSeconds(d)
  return Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`
}

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
    const live = new Set<ChildProcess>()
    const killGroup = (child: ChildProcess) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
    // Backstop: every instance is stopped by its own scope before this runs.
    yield* Effect.addFinalizer(() => Effect.sync(() => live.forEach(killGroup)))

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

    /** Starts a driver (and its soffice), stopped when the surrounding scope closes. */
    const startInstance = (slot: Slot, dir: string) =>
      Effect.gen(function*() {
        const pipe = `docstack-office-${process.pid}-${slot.index}-${slot.generation}-${randomBytes(4).toString("hex")}`
        const driver = yield* Effect.uninterruptible(
          Effect.sync(() => spawnDriver(dir, pipe)).pipe(
            Effect.tap((driver) => Effect.addFinalizer(() => driver.stop))
          )
        )
        const ready = yield* Effect.async<{ readonly pid: number; readonly startMs: number }, string>((resume) => {
          driver.onEvent = (message) => {
            if (message.event === "ready") {
              resume(Effect.succeed({ pid: Number(message.pid), startMs: Number(message.startMs) }))
            } else if (message.event === "failed") resume(Effect.fail(String(message.detail)))
          }
        }).pipe(
          Effect.raceFirst(
            Deferred.await(driver.exited).pipe(Effect.flatMap((how) => Effect.fail(`the driver stopped (${how})`)))
          ),
          Effect.timeoutFail({
            // The driver enforces the start timeout itself; this is the backstop should it hang.
            duration: Duration.sum(config.startTimeout, Duration.seconds(10)),
            onTimeout: () => `no answer within ${secondsText(config.startTimeout)} (OFFICE_START_TIMEOUT)`
          })
        )
        driver.onEvent = undefined
        const instance: Instance = {
          pid: driver.pid,
          sofficePid: ready.pid,
          exited: driver.exited,
          stop: driver.stop,
          request: driver.request
        }
        return { instance, startMs: ready.startMs }
      })

    /**
     * The driver process, in a process group of its own. `stop` closes its stdin, on which it kills
     * and reaps soffice and exits; should it not be gone within 3 s the whole group is killed.
     */
    const spawnDriver = (dir: string, pipe: string) => {
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(join(dir, "tmp"), { recursive: true })
      const child = spawn(config.python, [
        DRIVER,
        "--soffice",
        config.soffice,
        "--profile",
        join(dir, "profile"),
        "--workdir",
        join(dir, "work"),
        "--pipe",
        pipe,
        "--start-timeout",
        String(Duration.toSeconds(config.startTimeout)),
        "--remove-on-exit",
        dir
      ], { detached: true, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TMPDIR: join(dir, "tmp") } })
      live.add(child)

      const exited = Deferred.unsafeMake<string>(FiberId.none)
      let hasExited = false
      let stderrTail = ""
      let pending: {
        readonly id: number
        readonly resume: (effect: Effect.Effect<DriverReply, OfficeConversionFailed>) => void
      } | undefined
      const driver = {
        pid: child.pid ?? -1,
        exited,
        onEvent: undefined as ((message: Record<string, unknown>) => void) | undefined,
        request: (job: Job, cells: number | null) =>
          Effect.async<DriverReply, OfficeConversionFailed>((resume) => {
            if (hasExited) {
              return resume(Effect.fail(crashed("LibreOffice stopped unexpectedly while converting the document")))
            }
            const spec = OFFICE_FORMATS[job.format]
            pending = { id: job.id, resume }
            child.stdin!.write(
              JSON.stringify({
                id: job.id,
                input: job.input,
                extension: spec.extension,
                filters: spec.filters,
                filterOptions: spec.filterOptions ?? null,
                output: job.output,
                maxCells: cells,
                html: job.format === "html"
              }) + "\n"
            )
            return Effect.sync(() => {
              pending = undefined
            })
          }),
        stop: Effect.async<void>((resume) => {
          const cleanUp = () => {
            rmSync(dir, { recursive: true, force: true })
            for (const name of ipcPipeFiles(join(dir, "profile"), pipe)) rmSync(name, { force: true })
          }
          if (hasExited) {
            cleanUp()
            return resume(Effect.void)
          }
          const timer = setTimeout(() => killGroup(child), 3_000)
          child.once("exit", () => {
            clearTimeout(timer)
            cleanUp()
            resume(Effect.void)
          })
          child.stdin!.end()
        })
      }

      child.stderr!.on("data", (chunk: Buffer) => {
        stderrTail = (stderrTail + chunk.toString("utf8")).split("\n").filter((l) => !l.includes("javaldx")).join("\n")
          .slice(-2000)
      })
      child.stdin!.on("error", () => {
        // EPIPE after the driver died: the exit handler reports it
      })
      createInterface({ input: child.stdout! }).on("line", (line) => {
        let message: Record<string, unknown>
        try {
          message = JSON.parse(line) as Record<string, unknown>
        } catch {
          return
        }
        if (typeof message.event === "string") driver.onEvent?.(message)
        else if (pending && message.id === pending.id) {
          const { resume } = pending
          pending = undefined
          resume(Effect.succeed(message as unknown as DriverReply))
        }
      })
      const ended = (how: string) => {
        hasExited = true
        // Whatever the driver left in its group (it reaps soffice itself when it can).
        killGroup(child)
        live.delete(child)
        Deferred.unsafeDone(exited, Exit.succeed(how))
        if (pending) {
          const { resume } = pending
          pending = undefined
          resume(Effect.fail(crashed("LibreOffice stopped unexpectedly while converting the document")))
        }
      }
      child.on("error", (error) => ended(`could not run ${config.python}: ${error.message}`))
      child.on("exit", (code, signal) => {
        const tail = stderrTail.trim()
        const how = signal ? `killed by ${signal}` : `exit code ${code}`
        ended(tail ? `${how}: ${tail.split("\n").slice(-3).join(" | ")}` : how)
      })
      return driver
    }

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
              : "LibreOffice stopped unexpectedly while converting the document"
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
        const { instance, startMs } = yield* startInstance(slot, dir)
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
            const outcome = yield* instance.request(job, maxCells).pipe(
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
