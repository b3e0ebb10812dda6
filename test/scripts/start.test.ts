/**
 * scripts/start.mjs, what `npm start` runs: each process builds the services into a directory of
 * its own under node_modules/.cache/docstack, removes the ones of processes that are gone, and
 * removes its own when it stops.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { newDataDir } from "../../src/layers/Test.ts"
import { isRunning } from "../../src/services/common/Processes.ts"
import { awaitExit, freePort, startService } from "../support/processes.ts"

const CACHE = join(process.cwd(), "node_modules", ".cache", "docstack")

describe("scripts/start.mjs", () => {
  it.scoped(
    "builds into a directory of its own, clears those of ended processes, and removes its own on SIGTERM",
    () =>
      Effect.gen(function*() {
        // A process id that no process holds now: a build left by a broker that was killed.
        let deadPid = 4_000_000
        while (isRunning(deadPid)) deadPid--
        const stale = join(CACHE, `main-${deadPid}`)
        mkdirSync(stale, { recursive: true })
        writeFileSync(join(stale, "main.mjs"), "")

        const port = yield* freePort
        const { base, child } = yield* startService("gateway", { DATA_DIR: newDataDir(), DATABASE_URL: "" }, port)
        const own = join(CACHE, `main-${child.pid}`)
        expect((yield* Effect.promise(() => fetch(`${base}/actuator/health`))).status).toBe(200)
        expect(existsSync(stale)).toBe(false)
        expect(existsSync(join(own, "main.mjs"))).toBe(true)

        child.kill("SIGTERM")
        yield* awaitExit(child)
        expect(existsSync(own)).toBe(false)
      }),
    { timeout: 120_000 }
  )
})
