/**
 * The MCP reference server `@modelcontextprotocol/server-everything` (pinned in package.json) as a
 * process of its own on a free port: streamable HTTP at `/mcp`, or the older SSE transport at
 * `/sse`. Ready when its port answers; killed when the scope closes. `restart` starts it again on
 * the same port, forgetting its sessions, as a restarted or expired server does.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import * as path from "node:path"
import { awaitExit, freePort, sleep } from "./processes.ts"

/** The server's entry point, for a stdio configuration (`node <it> stdio`). */
export const EVERYTHING_ENTRY = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js"
)

type Mode = "streamableHttp" | "sse"

const launch = (mode: Mode, port: number) =>
  Effect.gen(function*() {
    const child = spawn(process.execPath, [EVERYTHING_ENTRY, mode], {
      env: { ...process.env, PORT: String(port) },
      stdio: ["ignore", "ignore", "ignore"]
    })
    // A POST that any state answers at once (its /message never answers one without a session).
    const path = mode === "sse" ? "/sse" : "/mcp"
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`server-everything exited with ${child.exitCode}`)
      // Any answer (400 without a session, 404 for POST /sse) means it listens.
      const status = yield* Effect.promise(() =>
        fetch(`http://127.0.0.1:${port}${path}`, { method: "POST" }).then((r) => r.status, () => 0)
      )
      if (status > 0) return child
      yield* sleep(100)
    }
    throw new Error("server-everything did not listen within 30 s")
  })

const kill = (child: ChildProcess) =>
  Effect.suspend(() => {
    if (child.exitCode !== null) return Effect.void
    child.kill("SIGKILL")
    return awaitExit(child)
  })

export const startEverything = (mode: Mode) =>
  Effect.gen(function*() {
    const port = yield* freePort
    let child = yield* launch(mode, port)
    yield* Effect.addFinalizer(() => kill(child))
    return {
      url: `http://127.0.0.1:${port}${mode === "sse" ? "/sse" : "/mcp"}`,
      restart: Effect.gen(function*() {
        yield* kill(child)
        child = yield* launch(mode, port)
      })
    }
  })
