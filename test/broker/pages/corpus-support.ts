/**
 * The PDF corpus and what the independent tools say of it, the ground truth of the corpus tests:
 * poppler and MuPDF (the tools the project's setup installs), never pdf.js, the broker's own engine.
 * Here too the table of the only files the broker may refuse, with the evidence that no reader can
 * show them.
 */
import { expect } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { CORPUS } from "../../support/backends.ts"

export const PDF_DIR = `${CORPUS}pdf/`
export const FILES = readdirSync(PDF_DIR).filter((name) => name.toLowerCase().endsWith(".pdf")).sort()
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-corpus-"))

/**
 * The only files the broker may refuse, each with what MANIFEST.tsv says about it and the evidence
 * that no reader can show it. Any other refusal fails the test of that file.
 */
export const EXPECTED_REFUSALS: Readonly<
  Record<string, { readonly manifest: string; readonly message: RegExp; readonly evidence: () => void }>
> = {
  "password.pdf": {
    manifest: "encrypted, user password required (password not recorded)",
    message: /password/i,
    evidence: () => expect(tool("pdfinfo", [`${PDF_DIR}password.pdf`]).stderr).toMatch(/Incorrect password/)
  },
  "issue6010_1.pdf": {
    manifest: "encrypted, user password required: \"abc\" (per pdf.js test_manifest.json)",
    message: /password/i,
    evidence: () => expect(tool("pdfinfo", [`${PDF_DIR}issue6010_1.pdf`]).stderr).toMatch(/Incorrect password/)
  },
  // Unrepairable: pdfinfo cannot count its pages, mutool's repair finds none (qpdf's finds no /Root):
  // the file is cut off after 184 bytes, inside its only page's dictionary.
  "bug1020226.pdf": {
    manifest: "severely broken 184-byte file (pdfinfo cannot get a page count)",
    message: /cannot be read/i,
    evidence: () => {
      expect(tool("pdfinfo", [`${PDF_DIR}bug1020226.pdf`]).status).not.toBe(0)
      expect(tool("mutool", ["info", `${PDF_DIR}bug1020226.pdf`]).stdout).toMatch(/Pages: 0/)
    }
  },
  // Unrepairable: pdfinfo counts one page but sizes it 0 x 0 pt, and poppler's renderer finds that
  // page's object "is wrong type"; mutool cannot draw it (and qpdf's repair finds no /Root). There
  // is no page to show.
  "poppler-742-0-fuzzed.pdf": {
    manifest: "fuzzed file (poppler bug 742); poppler prints ~1,500 errors",
    message: /cannot be read/i,
    evidence: () => {
      expect(tool("pdfinfo", [`${PDF_DIR}poppler-742-0-fuzzed.pdf`]).stdout).toMatch(/Page size:\s+0 x 0 pts/)
      const out = path.join(scratch, "742")
      expect(tool("pdftoppm", ["-r", "10", "-png", `${PDF_DIR}poppler-742-0-fuzzed.pdf`, out]).stderr).toMatch(
        /Kids object \(page 1\) is wrong type/
      )
      expect(tool("mutool", ["draw", "-o", `${out}.png`, `${PDF_DIR}poppler-742-0-fuzzed.pdf`]).stderr).toMatch(
        /cannot draw/
      )
    }
  }
}

// ---- independent tools ----------------------------------------------------------------------

const tool = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 512 * 1024 * 1024 })
  if (result.error) throw result.error
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

interface PopplerPage {
  readonly width: number
  readonly height: number
  readonly rotation: number
}

/** Page boxes as pdfinfo reports them (crop box, before rotation); undefined when it cannot count the pages. */
export const pdfinfoPages = (file: string): ReadonlyArray<PopplerPage> | undefined => {
  const summary = tool("pdfinfo", [file])
  const count = /^Pages:\s+(\d+)/m.exec(summary.stdout)
  if (summary.status !== 0 || !count) return undefined
  const detail = tool("pdfinfo", ["-f", "1", "-l", count[1]!, file]).stdout
  const pages: Array<{ width: number; height: number; rotation: number }> = []
  for (const [, n, w, h] of detail.matchAll(/^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts/gm)) {
    pages[Number(n) - 1] = { width: Number(w), height: Number(h), rotation: 0 }
  }
  for (const [, n, r] of detail.matchAll(/^Page\s+(\d+) rot:\s+(\d+)/gm)) pages[Number(n) - 1]!.rotation = Number(r)
  expect(pages).toHaveLength(Number(count[1]))
  return pages
}

/** Words with their boxes in the displayed page (points, origin top left), from poppler. */
export const popplerWords = (file: string, page: number) =>
  Array.from(
    tool("pdftotext", ["-bbox", "-f", String(page + 1), "-l", String(page + 1), file, "-"]).stdout.matchAll(
      /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g
    ),
    ([, x0, y0, x1, y1, text]) => ({ text: text!, x0: Number(x0), y0: Number(y0), x1: Number(x1), y1: Number(y1) })
  )

/** Page text by poppler, one string per page (pdftotext joins words split by a line-end hyphen). */
export const popplerText = (file: string) => tool("pdftotext", [file, "-"]).stdout.split("\f").slice(0, -1)

/** Page 1-based `page` rendered by poppler, `width` pixels wide, from the crop box as a viewer shows it. */
export const popplerRender = (file: string, page: number, width: number) => {
  const out = path.join(scratch, `ref-${path.basename(file)}-${page}`)
  const run = tool("pdftoppm", [
    "-f",
    String(page),
    "-l",
    String(page),
    "-png",
    "-cropbox",
    "-scale-to-x",
    String(width),
    "-scale-to-y",
    "-1",
    "-singlefile",
    file,
    out
  ])
  expect(run.status, run.stderr).toBe(0)
  return readFileSync(`${out}.png`)
}

const mutoolScript = (name: string, source: string) => {
  const file = path.join(scratch, name)
  writeFileSync(file, source)
  return file
}

/**
 * Scripts for `mutool run` (MuPDF's JavaScript, mutool 1.21 API). Objects that are absent come back
 * undefined or as a null object, depending on the version, hence `present`.
 */
const MUTOOL_PRELUDE = `
var pdf = new PDFDocument(scriptArgs[0])
var present = function (o) { return o !== undefined && o !== null && !o.isNull() }
`

/**
 * The outline as MuPDF loads it (title, target URI such as "#page=3&zoom=nan,0,28.35" or a web
 * address, children), with each item's open state from the raw /Outlines tree (/Count > 0).
 */
export const OUTLINE_SCRIPT = mutoolScript(
  "outline.js",
  `${MUTOOL_PRELUDE}
function raw(item) {
  var list = []
  for (; present(item); item = item.get("Next")) {
    var count = item.get("Count")
    list.push({ count: present(count) ? count.valueOf() : 0, kids: raw(item.get("First")) })
  }
  return list
}
function zip(loaded, items) {
  if (loaded.length !== items.length) throw new Error("the outline MuPDF loads and the /Outlines tree differ")
  return loaded.map(function (o, i) { return { title: o.title, uri: o.uri, open: items[i].count > 0, kids: zip(o.down || [], items[i].kids) } })
}
var outlines = pdf.getTrailer().get("Root").get("Outlines")
print(JSON.stringify(zip(pdf.loadOutline() || [], present(outlines) ? raw(outlines.get("First")) : [])))
`
)

export interface MuOutline {
  readonly title: string
  readonly uri?: string
  readonly open: boolean
  readonly kids: ReadonlyArray<MuOutline>
}

/** Named destinations as [name, 0-based page]: the /Names /Dests tree and the older /Dests dictionary. */
export const DESTINATIONS_SCRIPT = mutoolScript(
  "destinations.js",
  `${MUTOOL_PRELUDE}
var pages = {}
for (var i = 0; i < pdf.countPages(); i++) pages[pdf.findPage(i).asIndirect()] = i
var out = []
function target(v) {
  if (present(v) && v.isDictionary()) v = v.get("D")
  if (present(v) && v.isArray() && v.length > 0 && v.get(0).isIndirect()) return pages[v.get(0).asIndirect()]
}
function add(name, value) {
  var page = target(value)
  if (page !== undefined) out.push([name, page])
}
function walk(node) {
  var kids = node.get("Kids")
  if (present(kids)) for (var k = 0; k < kids.length; k++) walk(kids.get(k))
  var names = node.get("Names")
  if (present(names)) for (var n = 0; n + 1 < names.length; n += 2) add(names.get(n).asString(), names.get(n + 1))
}
var root = pdf.getTrailer().get("Root")
var trees = root.get("Names")
if (present(trees) && present(trees.get("Dests"))) walk(trees.get("Dests"))
var old = root.get("Dests")
// forEach passes (key, value) in mutool 1.21 and (value, key) in later versions.
if (present(old)) old.forEach(function (a, b) { if (typeof a === "string") add(a, b); else add(b, a) })
print(JSON.stringify(out))
`
)

export const mutoolRun = (script: string, file: string): unknown => {
  const run = tool("mutool", ["run", script, file])
  expect(run.status, run.stderr).toBe(0)
  return JSON.parse(run.stdout)
}
