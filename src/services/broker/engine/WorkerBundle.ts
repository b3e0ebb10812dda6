/**
 * The PDF worker (its entry and every feature's handlers it imports) as JavaScript, built with
 * esbuild when the engine starts (about a second): the entry, and a module for each feature's
 * handlers with the code only they use, which a thread imports on its first request for them
 * (FeatureHandlers.ts). Measured here: a worker thread running the TypeScript through the tsx
 * loader holds about 275 MB; the same code bundled holds about 100 MB. Built every start, so it can
 * never be stale.
 */
import { build, stop } from "esbuild"
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { isRunning } from "../../common/Processes.ts"

/**
 * Packages with native parts or their own data files stay outside the bundle and load from
 * node_modules (@embedpdf/pdfium: Pdfium.ts finds its pdfium.wasm beside it there).
 */
const EXTERNAL = ["sharp", "@napi-rs/canvas", "pdfjs-dist", "pdf-lib", "@embedpdf/pdfium"]

/**
 * Bundles left by brokers that were killed before they could remove theirs (about 5 MB each): the
 * folders of today's, and the single files (`pdf-worker-<pid>.mjs`) that brokers built before the
 * bundle was split by feature.
 */
const removeStaleBundles = (cacheDir: string) => {
  for (const name of readdirSync(cacheDir)) {
    const pid = /^pdf-worker-(\d+)(?:-\d+|\.mjs)$/.exec(name)?.[1]
    if (pid !== undefined && Number(pid) !== process.pid && !isRunning(Number(pid))) {
      rmSync(path.join(cacheDir, name), { recursive: true, force: true })
    }
  }
}

/** A bundle of the worker: its entry (the file a thread starts) and the folder that holds it and its modules. */
export interface WorkerBundle {
  readonly entry: string
  readonly folder: string
}

/** Bundles this process built: two engines in one process (a test's) each keep their own. */
let builds = 0

/**
 * Builds the bundle of `entry` into a folder of this process's own (several brokers may share
 * node_modules). Removed when the engine stops, and not before: its threads import their feature
 * modules from it as requests come.
 */
export const buildWorkerBundle = async (entry: URL): Promise<WorkerBundle> => {
  // Inside node_modules, so the bundle's imports of the external packages resolve as usual.
  const nodeModules = path.join(path.dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "..")
  const cacheDir = path.join(nodeModules, ".cache", "docstack")
  mkdirSync(cacheDir, { recursive: true })
  removeStaleBundles(cacheDir)
  const folder = path.join(cacheDir, `pdf-worker-${process.pid}-${builds++}`)
  await build({
    entryPoints: { "pdf-worker": fileURLToPath(entry) },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outdir: folder,
    outExtension: { ".js": ".mjs" },
    external: EXTERNAL,
    logLevel: "warning",
    // Bundled CommonJS dependencies call require(); give the ES module one.
    banner: {
      js:
        "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
    }
  })
  // esbuild keeps a service process (about 200 MB) alive for further builds; there are none.
  await stop()
  return { entry: path.join(folder, "pdf-worker.mjs"), folder }
}
