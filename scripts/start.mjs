#!/usr/bin/env node
// Runs the stack as `npm start` does (`node scripts/start.mjs [service...]`): src/main.ts and the
// project's modules it imports are built with esbuild into ES modules of this process's own
// (about 0.7 s, every start, so never stale), which Node then runs itself; npm packages load from
// node_modules untouched. Why not tsx, as in development: its loader keeps a thread of its own with
// esbuild and every transformed file, and turns source maps on for every module loaded, npm
// packages included. Measured on a broker left idle 40 s after start: 295 MiB built this way against
// 360-440 MiB through tsx (docs/administration.md).
// Plain JavaScript on purpose: it runs before any TypeScript can.
import { build, stop } from "esbuild"
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
// Inside node_modules, so that the built modules' imports of npm packages resolve as they would from src.
const cache = join(root, "node_modules", ".cache", "docstack")
const outdir = join(cache, `main-${process.pid}`)

const isRunning = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === "EPERM"
  }
}

/** Builds of processes that were killed before they could remove theirs (about 1 MB each). */
const removeStaleBuilds = () => {
  for (const name of readdirSync(cache)) {
    const pid = /^main-(\d+)$/.exec(name)?.[1]
    if (pid !== undefined && !isRunning(Number(pid))) rmSync(join(cache, name), { recursive: true, force: true })
  }
}

/**
 * Each project module keeps its own `import.meta.url`: the modules find the files beside them
 * (workers, scripts, web assets, package.json) from it, and one built file would otherwise give
 * them all its own.
 */
const ownModuleUrl = {
  name: "own-module-url",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async ({ path }) => ({
      contents: `const __moduleUrl = ${JSON.stringify(pathToFileURL(path).href)};\n${await readFile(path, "utf8")}`,
      loader: "ts"
    }))
  }
}

mkdirSync(cache, { recursive: true })
removeStaleBuilds()
process.on("exit", () => rmSync(outdir, { recursive: true, force: true }))
await build({
  entryPoints: [join(root, "src", "main.ts")],
  bundle: true,
  // Each service's layers stay a module of their own, imported only when that service runs
  // (src/layers/Main.ts): a broker alone never loads the gateway's packages.
  splitting: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  outdir,
  outExtension: { ".js": ".mjs" },
  define: { "import.meta.url": "__moduleUrl" },
  keepNames: true,
  plugins: [ownModuleUrl],
  logLevel: "warning"
})
// esbuild keeps a service process (about 200 MB) alive for further builds; there are none here.
await stop()
await import(pathToFileURL(join(outdir, "main.mjs")).href)
