/**
 * One LibreOffice instance of the pool (OfficeConverter): an `office-driver.py` (python3-uno) that
 * starts its own soffice on a private profile and UNO pipe, then converts one document at a time
 * on JSON-line requests. The driver runs in a process group of its own: stopping it kills the
 * group, and when this process dies however abruptly the driver sees its stdin close and kills
 * soffice.
 */
import { Data, Deferred, Duration, Effect, Exit, FiberId } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath, pathToFileURL } from "node:url"

const DRIVER = fileURLToPath(new URL("./office-driver.py", import.meta.url))

/** A conversion as the driver is asked it, one JSON line. */
export interface DriverRequest {
  readonly id: number
  readonly input: string
  /** Extension of the link the input is loaded through. */
  readonly extension: string
  /** Import filters tried in order. */
  readonly filters: ReadonlyArray<string>
  readonly filterOptions: string | null
  readonly output: string
  /** Used cells above which a spreadsheet is refused; null for no limit. */
  readonly maxCells: number | null
  readonly html: boolean
}

export type DriverReply =
  | { readonly id: number; readonly ok: true; readonly ms: number; readonly kind: string }
  | {
    readonly id: number
    readonly ok: false
    readonly reason: "password" | "unreadable" | "too-many-cells" | "crashed"
    readonly detail: string
    readonly cells?: number
  }

/** The driver exited before it answered a request. */
export class DriverStopped extends Data.TaggedError("DriverStopped") {}

/** One running driver + soffice. */
export interface OfficeInstance {
  readonly sofficePid: number
  /** Completed, with how, once the driver has exited. */
  readonly exited: Deferred.Deferred<string>
  readonly request: (request: DriverRequest) => Effect.Effect<DriverReply, DriverStopped>
  /** Stops LibreOffice at once and waits until it is gone. */
  readonly stop: Effect.Effect<void>
}

/** The settings a driver is started with (OfficeConverterConfig). */
export interface DriverSettings {
  readonly python: string
  readonly soffice: string
  readonly startTimeout: Duration.Duration
}

/** A duration in a message: "60 s", "1.5 s". */
export const secondsText = (d: Duration.Duration) => {
  const s = Duration.toSeconds(d)
  return Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`
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

const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    // already gone
  }
}

/**
 * What starts the pool's drivers. Closing the scope kills every driver still running: a backstop,
 * as each one is stopped by its own scope before.
 */
export const officeDrivers = (settings: DriverSettings) =>
  Effect.gen(function*() {
    const live = new Set<ChildProcess>()
    yield* Effect.addFinalizer(() => Effect.sync(() => live.forEach(killGroup)))

    /**
     * The driver process, in a process group of its own. `stop` closes its stdin, on which it kills
     * and reaps soffice and exits; should it not be gone within 3 s the whole group is killed.
     */
    const spawnDriver = (dir: string, pipe: string) => {
      rmSync(dir, { recursive: true, force: true })
      mkdirSync(join(dir, "tmp"), { recursive: true })
      const child = spawn(settings.python, [
        DRIVER,
        "--soffice",
        settings.soffice,
        "--profile",
        join(dir, "profile"),
        "--workdir",
        join(dir, "work"),
        "--pipe",
        pipe,
        "--start-timeout",
        String(Duration.toSeconds(settings.startTimeout)),
        "--remove-on-exit",
        dir
      ], { detached: true, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TMPDIR: join(dir, "tmp") } })
      live.add(child)

      const exited = Deferred.unsafeMake<string>(FiberId.none)
      let hasExited = false
      let stderrTail = ""
      let pending: {
        readonly id: number
        readonly resume: (effect: Effect.Effect<DriverReply, DriverStopped>) => void
      } | undefined
      const driver = {
        exited,
        onEvent: undefined as ((message: Record<string, unknown>) => void) | undefined,
        request: (request: DriverRequest) =>
          Effect.async<DriverReply, DriverStopped>((resume) => {
            if (hasExited) return resume(Effect.fail(new DriverStopped()))
            pending = { id: request.id, resume }
            child.stdin!.write(JSON.stringify(request) + "\n")
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
          resume(Effect.fail(new DriverStopped()))
        }
      }
      child.on("error", (error) => ended(`could not run ${settings.python}: ${error.message}`))
      child.on("exit", (code, signal) => {
        const tail = stderrTail.trim()
        const how = signal ? `killed by ${signal}` : `exit code ${code}`
        ended(tail ? `${how}: ${tail.split("\n").slice(-3).join(" | ")}` : how)
      })
      return driver
    }

    /**
     * Starts a driver (and its soffice) working in `dir`, stopped when the surrounding scope closes;
     * fails with why it did not start. `name` tells its UNO pipe from those of the other instances.
     */
    const start = (name: string, dir: string) =>
      Effect.gen(function*() {
        const pipe = `docstack-office-${process.pid}-${name}-${randomBytes(4).toString("hex")}`
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
            duration: Duration.sum(settings.startTimeout, Duration.seconds(10)),
            onTimeout: () => `no answer within ${secondsText(settings.startTimeout)} (OFFICE_START_TIMEOUT)`
          })
        )
        driver.onEvent = undefined
        const instance: OfficeInstance = {
          sofficePid: ready.pid,
          exited: driver.exited,
          stop: driver.stop,
          request: driver.request
        }
        return { instance, startMs: ready.startMs }
      })

    return { start }
  })
