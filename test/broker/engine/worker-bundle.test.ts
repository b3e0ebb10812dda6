/**
 * The worker's bundle is split by feature (engine/WorkerBundle.ts, FeatureHandlers.ts): what a
 * thread loads when it starts, and what it loads for its first page image or page text, names
 * neither pdf.js nor pdf-lib (together about 170-250 ms of a thread's start, docs/page-images.md);
 * the outline loads pdf.js alone and the annotations pdf-lib alone.
 * Read from the built modules' own import declarations, as Node follows them, and the packages
 * they import on first use.
 */
import { expect, it } from "@effect/vitest"
import { parse } from "acorn"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { buildWorkerBundle, type WorkerBundle } from "../../../src/services/broker/engine/WorkerBundle.ts"

let bundle: WorkerBundle

beforeAll(async () => {
  bundle = await buildWorkerBundle(new URL("../../../src/layers/PdfWorker.ts", import.meta.url))
}, 60_000)
afterAll(() => rmSync(bundle.folder, { recursive: true, force: true }))

/** Every `import("<package>")` with a literal name anywhere in a module's code. */
const packagesImportedLater = (node: unknown, into: Set<string>) => {
  if (typeof node !== "object" || node === null) return
  const { type, source } = node as { type?: unknown; source?: { value?: unknown } }
  const name = source?.value
  if (type === "ImportExpression" && typeof name === "string" && !name.startsWith(".") && !name.startsWith("node:")) {
    into.add(name)
  }
  for (const child of Object.values(node)) packagesImportedLater(child, into)
}

/**
 * The packages a module of the bundle loads: its static imports, followed through the bundle's own
 * modules, and the packages those modules import on first use (`import("pdfjs-dist/…")`). The
 * bundle's own modules imported on first use (each feature's, from the entry) are not followed.
 */
const packagesLoadedBy = (file: string) => {
  const packages = new Set<string>()
  const seen = new Set<string>()
  const follow = (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    const program = parse(readFileSync(path.join(bundle.folder, name), "utf8"), {
      ecmaVersion: "latest",
      sourceType: "module"
    })
    for (const node of program.body) {
      const source = "source" in node && node.source && "value" in node.source ? node.source.value : undefined
      if (typeof source !== "string") continue
      if (source.startsWith("./")) follow(source.slice(2))
      else if (!source.startsWith("node:")) packages.add(source)
    }
    packagesImportedLater(program, packages)
  }
  follow(file)
  return packages
}

const featureModule = (feature: string) => {
  const name = readdirSync(bundle.folder).find((f) => f.startsWith(`${feature}-`) && f.endsWith(".mjs"))
  expect(name, `the bundle has a module for ${feature}`).toBeDefined()
  return name!
}

const PDF_LIBRARIES = ["pdfjs-dist/legacy/build/pdf.mjs", "pdf-lib"]

it("a thread's start loads no PDF library", () => {
  expect([...packagesLoadedBy("pdf-worker.mjs")]).toEqual([])
})

it("page images and page text load PDFium, never pdf.js or pdf-lib", () => {
  for (const feature of ["PageWorker", "TextWorker"]) {
    const loaded = packagesLoadedBy(featureModule(feature))
    expect(loaded, feature).toContain("@embedpdf/pdfium")
    for (const library of PDF_LIBRARIES) expect(loaded, feature).not.toContain(library)
  }
})

it("outline and annotations load only the library each reads with, with their first request", () => {
  const [pdfjs, pdfLib] = PDF_LIBRARIES
  const outline = packagesLoadedBy(featureModule("OutlineWorker"))
  expect(outline).toContain(pdfjs)
  expect(outline).not.toContain(pdfLib)
  const annotations = packagesLoadedBy(featureModule("AnnotationWorker"))
  expect(annotations).toContain(pdfLib)
  expect(annotations).not.toContain(pdfjs)
  // A transformation writes with pdf-lib: the walk finds what a module loads through the bundle's own.
  expect(packagesLoadedBy(featureModule("TransformWorker"))).toContain(pdfLib)
})

it(
  "a new build removes the bundles of brokers no longer running, in either layout, and keeps a running one's",
  async () => {
    const cacheDir = path.dirname(bundle.folder)
    // A process that has ended: its pid is (for the moment) nobody's.
    const ended = spawnSync(process.execPath, ["-e", ""]).pid
    const stale = [path.join(cacheDir, `pdf-worker-${ended}-0`), path.join(cacheDir, `pdf-worker-${ended}.mjs`)]
    const running = path.join(cacheDir, "pdf-worker-1-0")
    mkdirSync(stale[0]!, { recursive: true })
    writeFileSync(stale[1]!, "")
    mkdirSync(running, { recursive: true })
    try {
      const another = await buildWorkerBundle(new URL("../../../src/layers/PdfWorker.ts", import.meta.url))
      rmSync(another.folder, { recursive: true, force: true })
      expect(stale.filter((entry) => existsSync(entry))).toEqual([])
      expect(existsSync(running)).toBe(true)
      expect(existsSync(bundle.folder)).toBe(true)
    } finally {
      for (const entry of [...stale, running]) rmSync(entry, { recursive: true, force: true })
    }
  },
  60_000
)
