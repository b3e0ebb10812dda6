/**
 * The PDF worker (its entry and every feature's handlers it imports) as one JavaScript file, built
 * with esbuild when the engine starts (about a second).
 * Measured here: a worker thread running the TypeScript through the tsx loader holds about 275 MB;
 * the same code bundled holds about 100 MB. Built every start, so it can never be stale.
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

/** Bundles left by brokers that were killed before they could remove theirs (about 4 MB each). */
const removeStaleBundles = (outDir: string) => {
  for (const name of readdirSync(outDir)) {
    const pid = /^pdf-worker-(\d+)\.mjs$/.exec(name)?.[1]
    if (pid !== undefined && Number(pid) !== process.pid && !isRunning(Number(pid))) {
      rmSync(path.join(outDir, name), { force: true })
    }
  }
}

/** Builds the bundle of `entry` into a file of this process's own (several brokers may share node_modules). */
export const buildWorkerBundle = async (entry: URL): Promise<string> => {
  // Inside node_modules, so the bundle's imports of the external packages resolve as usual.
  const nodeModules = path.join(path.dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "..")
  const outDir = path.join(nodeModules, ".cache", "docstack")
  mkdirSync(outDir, { recursive: true })
  removeStaleBundles(outDir)
  const outfile = path.join(outDir, `pdf-worker-${process.pid}.mjs`)
  await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
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
  return outfile
}
