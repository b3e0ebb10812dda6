#!/usr/bin/env node
// Bundles the browser code of web/ into web/dist/ with esbuild (setup runs it; so do the browser
// tests). Does nothing when every bundle is newer than every source file, so it is cheap to call.
// Plain JavaScript: setup.mjs imports it before anything is compiled.
import { existsSync, readdirSync, rmSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Each bundle: its entry point and the file it becomes. */
export const BUNDLES = [
  { entry: "web/viewer/src/main.ts", outfile: "web/dist/docstack-viewer.js" }
]

/**
 * The gateway's web components (web/gateway/<name>/script.ts and style.css), served under
 * /api/web-components/<name>/script and /style: built together, so that lit and the client they
 * share come once, in a chunk the bundles import from web/dist/web-components/chunks/.
 */
export const WEB_COMPONENTS = ["chat", "quick-prompt", "admin"]
const WEB_COMPONENTS_OUT = "web/dist/web-components"

/** Options every bundle is built with. */
const COMMON = {
  bundle: true,
  format: "esm",
  // Chromium, Firefox and Safari of the last two years; lit needs nothing older.
  target: ["chrome120", "firefox121", "safari17"],
  minify: true,
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "warning"
}

const newestSource = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name)
    return Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
  }, 0)

/** Builds the bundles whose sources changed (all with `force`); answers the names it built. */
export async function buildWeb({ force = false } = {}) {
  const lock = statSync(join(root, "package-lock.json")).mtimeMs
  const isStale = (outfile, sources) => {
    const out = join(root, outfile)
    return force || !existsSync(out) || statSync(out).mtimeMs < Math.max(sources, lock)
  }
  const viewerSources = newestSource(join(root, "web/viewer"))
  const stale = BUNDLES.filter(({ outfile }) => isStale(outfile, viewerSources))
  const gatewaySources = newestSource(join(root, "web/gateway"))
  const componentsStale = WEB_COMPONENTS.some((name) =>
    isStale(`${WEB_COMPONENTS_OUT}/${name}/script.js`, gatewaySources)
  )
  if (stale.length === 0 && !componentsStale) return []
  const { build } = await import("esbuild")
  for (const { entry, outfile } of stale) {
    await build({ ...COMMON, entryPoints: [join(root, entry)], outfile: join(root, outfile) })
  }
  if (componentsStale) {
    rmSync(join(root, WEB_COMPONENTS_OUT), { recursive: true, force: true })
    await build({
      ...COMMON,
      entryPoints: WEB_COMPONENTS.flatMap((name) => [
        join(root, `web/gateway/${name}/script.ts`),
        join(root, `web/gateway/${name}/style.css`)
      ]),
      outbase: join(root, "web/gateway"),
      outdir: join(root, WEB_COMPONENTS_OUT),
      splitting: true,
      chunkNames: "chunks/[name]-[hash]"
    })
  }
  return [...stale.map(({ outfile }) => outfile), ...(componentsStale ? [WEB_COMPONENTS_OUT] : [])]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const built = await buildWeb({ force: process.argv.includes("--force") })
  console.log(built.length === 0 ? "[build-web] bundles are current" : `[build-web] built ${built.join(", ")}`)
}
