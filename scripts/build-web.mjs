#!/usr/bin/env node
// Bundles the browser code of web/ into web/dist/ with esbuild (setup runs it; so do the browser
// tests). Does nothing when every bundle is newer than every source file, so it is cheap to call.
// Plain JavaScript: setup.mjs imports it before anything is compiled.
import { existsSync, readdirSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Each bundle: its entry point and the file it becomes. */
export const BUNDLES = [
  { entry: "web/viewer/src/main.ts", outfile: "web/dist/docstack-viewer.js" }
]

const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name)
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }, 0)

/** Builds the bundles whose sources changed (all with `force`); answers the names it built. */
export async function buildWeb({ force = false } = {}) {
  const sources = Math.max(newestSource(join(root, "web/viewer")), statSync(join(root, "package-lock.json")).mtimeMs)
  const stale = BUNDLES.filter(({ outfile }) => {
    const out = join(root, outfile)
    return force || !existsSync(out) || statSync(out).mtimeMs < sources
  })
  if (stale.length === 0) return []
  const { build } = await import("esbuild")
  for (const { entry, outfile } of stale) {
    await build({
      entryPoints: [join(root, entry)],
      outfile: join(root, outfile),
      bundle: true,
      format: "esm",
      // Chromium, Firefox and Safari of the last two years; lit needs nothing older.
      target: ["chrome120", "firefox121", "safari17"],
      minify: true,
      sourcemap: "linked",
      legalComments: "linked",
      logLevel: "warning"
    })
  }
  return stale.map(({ outfile }) => outfile)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await buildWeb({ force: process.argv.includes("--force") })
  console.log(built.length === 0 ? "[build-web] bundles are current" : `[build-web] built ${built.join(", ")}`)
}
