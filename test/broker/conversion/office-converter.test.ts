/**
 * The LibreOffice pool with real LibreOffice: every office format of the corpus to a PDF (pages
 * counted with pdfinfo, text read with pdftotext), CSV and UTF-8 text and HTML written here,
 * password-protected and damaged files, the spreadsheet cell limit, the conversion timeout,
 * cancellation, replacement after OFFICE_CONVERSIONS_PER_INSTANCE conversions, and no LibreOffice
 * left behind when the Node process is killed.
 *
 * Inputs are copied to names without an extension, as the blob store keeps them. The pools run on
 * the real clock (excludeTestServices): their timeouts must fire.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Fiber, Layer } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import {
  OfficeConversionFailed,
  OfficeConverter,
  type OfficeFormat
} from "../../../src/services/broker/conversion/OfficeConverter.ts"
import { CORPUS } from "../../support/backends.ts"

const OFFICE = path.join(CORPUS, "office")
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-office-test-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** A pool configured only by `config` (no environment variable leaks in). */
const pool = (config: Record<string, string>) =>
  OfficeConverter.Default.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(config)))))
  )

/** A corpus file as the blob store holds it: a file without an extension. */
const blob = (name: string) => {
  const file = path.join(scratch, `blob-${randomBytes(6).toString("hex")}`)
  copyFileSync(path.join(OFFICE, name), file)
  return file
}
const written = (content: string | Uint8Array) => {
  const file = path.join(scratch, `blob-${randomBytes(6).toString("hex")}`)
  writeFileSync(file, content)
  return file
}
const output = () => path.join(scratch, `out-${randomBytes(6).toString("hex")}.pdf`)

const pdfPages = (file: string) =>
  Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [file], { encoding: "utf8" }))?.[1] ?? 0)
const pdfPageSize = (file: string) =>
  /Page size:\s+([\d.]+) x ([\d.]+)/.exec(execFileSync("pdfinfo", [file], { encoding: "utf8" }))!.slice(1).map(Number)
const pdfText = (file: string) => execFileSync("pdftotext", ["-enc", "UTF-8", file, "-"], { encoding: "utf8" })

const convert = (input: string, format: OfficeFormat) =>
  Effect.gen(function*() {
    const converter = yield* OfficeConverter
    const out = output()
    yield* converter.convert({ path: input, format }, out)
    return out
  })

const failure = (input: string, format: OfficeFormat) =>
  Effect.gen(function*() {
    const converter = yield* OfficeConverter
    return yield* converter.convert({ path: input, format }, output()).pipe(Effect.flip)
  })

const isRunning = (pid: number) => {
  try {
    // A zombie is dead, whatever kill(0) says.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}

/** Processes whose command line contains `needle` (drivers and soffice carry their pipe name). */
const processesWith = (needle: string) =>
  readdirSync("/proc").filter((p) => /^\d+$/.test(p)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(needle) && isRunning(Number(pid))
    } catch {
      return false
    }
  })

const waitUntil = <A>(probe: Effect.Effect<A>, done: (a: A) => boolean, what: string) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 300; attempt++) {
      const value = yield* probe
      if (done(value)) return value
      yield* Effect.sleep(Duration.millis(50))
    }
    throw new Error(`${what}: not within 15 s`)
  })

const partialsLeft = () => readdirSync(scratch).filter((f) => f.endsWith(".partial"))

describe("OfficeConverter", () => {
  layer(pool({ OFFICE_INSTANCES: "2" }), { timeout: 120_000, excludeTestServices: true })(
    "a pool of two instances",
    (it) => {
      it.effect("converts a docx with tables; the PDF holds the tables' text", () =>
        Effect.gen(function*() {
          const out = yield* convert(blob("docx-tables.docx"), "docx")
          expect(pdfPages(out)).toBeGreaterThanOrEqual(1)
          const text = pdfText(out)
          for (
            const cell of [
              "Simple uniform table",
              "Header Col 1",
              "Lorem ipsum",
              "Nested Table",
              "Table with merged cells",
              "A link example"
            ]
          ) {
            expect(text).toContain(cell)
          }
        }), 60_000)

      it.effect("converts every office format of the corpus to at least one page", () =>
        Effect.gen(function*() {
          const files: ReadonlyArray<readonly [string, OfficeFormat]> = [
            ["fake-doc-emphasized-text.doc", "doc"],
            ["fake.odt", "odt"],
            ["eng_spa_mult.rtf", "rtf"],
            ["tests-example.xls", "xls"],
            ["2023-half-year-analyses-by-segment.xlsx", "xlsx"],
            ["AntarcticaTemps.ods", "ods"],
            ["fake-power-point.ppt", "ppt"],
            ["fake-power-point-table.pptx", "pptx"]
          ]
          // Both instances at once, and more conversions than instances: the rest wait their turn.
          const results = yield* Effect.forEach(
            files,
            ([name, format]) => convert(blob(name), format).pipe(Effect.map((out) => [name, pdfPages(out)] as const)),
            {
              concurrency: "unbounded"
            }
          )
          for (const [name, pages] of results) expect(pages, name).toBeGreaterThanOrEqual(1)
        }), 90_000)

      it.effect("converts a CSV (UTF-8, commas, quotes) through Calc", () =>
        Effect.gen(function*() {
          const csv = written(
            "city,country,population\n\"Zürich, ZH\",Switzerland,421878\nМосква,Россия,13010112\n서울,대한민국,9411000\n"
          )
          const out = yield* convert(csv, "csv")
          expect(pdfPages(out)).toBeGreaterThanOrEqual(1)
          const text = pdfText(out)
          for (const cell of ["population", "Zürich, ZH", "Москва", "서울", "421878"]) expect(text).toContain(cell)
        }), 60_000)

      it.effect(
        "converts UTF-8 text with Cyrillic and Korean into paginated monospace pages",
        () =>
          Effect.gen(function*() {
            const lines = [
              "Привет, мир! Это проверка.",
              "안녕하세요, 세계! 시험입니다.",
              ...Array.from({ length: 150 }, (_, i) => `line ${i + 1}: the quick brown fox`)
            ]
            const out = yield* convert(written(lines.join("\n") + "\n"), "text")
            expect(pdfPages(out)).toBeGreaterThanOrEqual(2)
            const [width, height] = pdfPageSize(out)
            // A4 (595 × 842) or Letter (612 × 792), as LibreOffice's defaults have it.
            expect([595, 612]).toContain(Math.round(width!))
            expect([842, 792]).toContain(Math.round(height!))
            const text = pdfText(out)
            expect(text).toContain("Привет, мир!")
            expect(text).toContain("안녕하세요")
            expect(text).toContain("line 150")
            expect(execFileSync("pdffonts", [out], { encoding: "utf8" })).toMatch(/Mono/)
          }),
        60_000
      )

      it.effect("converts HTML through Writer, whatever charset its <meta> still names", () =>
        Effect.gen(function*() {
          const html = written(
            "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><title>t</title></head>" +
              "<body><h1>Überschrift</h1><p>Привет мир — 안녕하세요</p><table><tr><td>cell A</td><td>cell B</td></tr></table></body></html>"
          )
          const out = yield* convert(html, "html")
          expect(pdfPages(out)).toBeGreaterThanOrEqual(1)
          // Writer's page, not Writer/Web's endless one.
          const [, height] = pdfPageSize(out)
          expect([842, 792]).toContain(Math.round(height!))
          const text = pdfText(out)
          for (const s of ["Überschrift", "Привет мир", "안녕하세요", "cell A"]) {
            expect(text).toContain(s)
          }
        }), 60_000)

      it.effect(
        "fails fast with reason password on a password-protected workbook, leaving no partial PDF",
        () =>
          Effect.gen(function*() {
            const error = yield* failure(blob("password_protected.xlsx"), "xlsx")
            expect(error).toBeInstanceOf(OfficeConversionFailed)
            expect(error.reason).toBe("password")
            expect(error.message).toMatch(/password/)
            expect(partialsLeft()).toEqual([])
          }),
        60_000
      )

      it.effect(
        "fails with reason unreadable on damaged or mislabelled input, and on a missing file",
        () =>
          Effect.gen(function*() {
            const noise = yield* failure(written(randomBytes(20_000)), "docx")
            expect(noise.reason).toBe("unreadable")
            expect(noise.message).toContain("Word document (.docx)")
            const mislabelled = yield* failure(blob("fake.odt"), "xlsx")
            expect(mislabelled.reason).toBe("unreadable")
            const missing = yield* failure(path.join(scratch, "no-such-blob"), "docx")
            expect(missing.reason).toBe("unreadable")
            // The pool is fine afterwards.
            expect(pdfPages(yield* convert(blob("fake.odt"), "odt"))).toBeGreaterThanOrEqual(1)
          }),
        60_000
      )

      it.effect(
        "an interrupted conversion stops its LibreOffice at once; the pool stays usable",
        () =>
          Effect.gen(function*() {
            const converter = yield* OfficeConverter
            const fiber = yield* Effect.fork(
              converter.convert({ path: blob("handbook-872p.docx"), format: "docx" }, output())
            )
            const busy = yield* waitUntil(
              converter.instances,
              (list) => list.some((i) => i.status === "busy"),
              "an instance busy"
            )
            const pid = busy.find((i) => i.status === "busy")!.pid!
            yield* Effect.sleep(Duration.millis(500))
            expect(isRunning(pid)).toBe(true)
            yield* Fiber.interrupt(fiber)
            expect(isRunning(pid)).toBe(false)
            expect(partialsLeft()).toEqual([])
            expect(pdfPages(yield* convert(blob("docx-tables.docx"), "docx"))).toBeGreaterThanOrEqual(1)
            yield* converter.ping
          }),
        60_000
      )

      it.effect(
        "a LibreOffice that dies mid-conversion fails it with reason crashed and is replaced",
        () =>
          Effect.gen(function*() {
            const converter = yield* OfficeConverter
            const fiber = yield* Effect.fork(
              converter.convert({ path: blob("handbook-872p.docx"), format: "docx" }, output()).pipe(Effect.flip)
            )
            const busy = yield* waitUntil(
              converter.instances,
              (list) => list.some((i) => i.status === "busy"),
              "an instance busy"
            )
            yield* Effect.sleep(Duration.millis(300))
            process.kill(busy.find((i) => i.status === "busy")!.pid!, "SIGKILL")
            const error = yield* Fiber.join(fiber)
            expect(error.reason).toBe("crashed")
            expect(error.message).toContain("stopped unexpectedly")
            expect(pdfPages(yield* convert(blob("fake.odt"), "odt"))).toBeGreaterThanOrEqual(1)
          }),
        60_000
      )

      it.effect(
        "answers ping from the instances' state, not queued behind conversions that hold every instance",
        () =>
          Effect.gen(function*() {
            const converter = yield* OfficeConverter
            const long = () => converter.convert({ path: blob("handbook-872p.docx"), format: "docx" }, output())
            const fibers = [yield* Effect.fork(long()), yield* Effect.fork(long())]
            yield* waitUntil(
              converter.instances,
              (list) => list.every((i) => i.status === "busy"),
              "every instance busy"
            )
            yield* converter.ping
            // Answered while both conversions still held their instances.
            expect((yield* converter.instances).every((i) => i.status === "busy")).toBe(true)
            yield* Fiber.interrupt(fibers[0]!)
            yield* Fiber.interrupt(fibers[1]!)
          }),
        60_000
      )
    }
  )

  layer(pool({ OFFICE_INSTANCES: "1", OFFICE_CONVERSIONS_PER_INSTANCE: "2", EXCEL_MAXIMUM_CELL_COUNT: "100" }), {
    timeout: 120_000,
    excludeTestServices: true
  })(
    "one instance, replaced every 2 conversions, at most 100 cells",
    (it) => {
      it.effect(
        "refuses a spreadsheet with more used cells than EXCEL_MAXIMUM_CELL_COUNT, naming both",
        () =>
          Effect.gen(function*() {
            const error = yield* failure(blob("2023-half-year-analyses-by-segment.xlsx"), "xlsx")
            expect(error.reason).toBe("too-many-cells")
            expect(error.message).toContain("1,194")
            expect(error.message).toContain("100")
            expect(error.message).toContain("EXCEL_MAXIMUM_CELL_COUNT")
            // A small sheet passes.
            expect(pdfPages(yield* convert(written("a,b\n1,2\n"), "csv"))).toBe(1)
          }),
        60_000
      )

      it.effect(
        "replaces the instance after OFFICE_CONVERSIONS_PER_INSTANCE conversions; conversions still succeed",
        () =>
          Effect.gen(function*() {
            const converter = yield* OfficeConverter
            const before = (yield* converter.instances)[0]!.restarts
            for (
              const [name, format] of [
                ["fake.odt", "odt"],
                ["docx-tables.docx", "docx"],
                ["fake-power-point-table.pptx", "pptx"],
                ["eng_spa_mult.rtf", "rtf"],
                ["fake.odt", "odt"]
              ] as const
            ) {
              expect(pdfPages(yield* convert(blob(name), format))).toBeGreaterThanOrEqual(1)
            }
            const after = (yield* converter.instances)[0]!.restarts
            expect(after - before).toBeGreaterThanOrEqual(2)
          }),
        90_000
      )
    }
  )

  layer(pool({ OFFICE_INSTANCES: "1", SOFFICE_CONVERSION_TIMEOUT: "1" }), {
    timeout: 120_000,
    excludeTestServices: true
  })("a 1 s conversion timeout", (it) => {
    it.effect(
      "stops an 872-page document with reason timeout; the next small file converts",
      () =>
        Effect.gen(function*() {
          const error = yield* failure(blob("handbook-872p.docx"), "docx")
          expect(error.reason).toBe("timeout")
          expect(error.message).toBe("The conversion took longer than 1 s (SOFFICE_CONVERSION_TIMEOUT) and was stopped")
          expect(pdfPages(yield* convert(blob("fake.odt"), "odt"))).toBeGreaterThanOrEqual(1)
        }),
      60_000
    )
  })

  layer(pool({ OFFICE_INSTANCES: "1", SOFFICE_PATH: "/nonexistent/soffice" }), {
    timeout: 60_000,
    excludeTestServices: true
  })("a LibreOffice that cannot start", (it) => {
    it.effect(
      "fails conversions with reason crashed instead of queueing them for ever; ping fails",
      () =>
        Effect.gen(function*() {
          const converter = yield* OfficeConverter
          const error = yield* failure(blob("fake.odt"), "odt")
          expect(error.reason).toBe("crashed")
          expect(error.message).toMatch(/could not be started/)
          const down = yield* converter.ping.pipe(Effect.flip)
          expect(down.message).toMatch(/not running/)
        }),
      30_000
    )
  })

  it("leaves no LibreOffice behind when the Node process is killed (SIGKILL)", async () => {
    const source = `
      import { ConfigProvider, Effect, Layer } from "effect"
      import { OfficeConverter } from ${
      JSON.stringify(path.resolve("src/services/broker/conversion/OfficeConverter.ts"))
    }
      const layer = OfficeConverter.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["OFFICE_INSTANCES", "2"]])))))
      Effect.runFork(Effect.gen(function*() {
        const converter = yield* OfficeConverter
        yield* converter.convert({ path: ${JSON.stringify(blob("fake.odt"))}, format: "odt" }, ${
      JSON.stringify(output())
    })
        console.log("CONVERTED")
        yield* Effect.never
      }).pipe(Effect.provide(layer)))`
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    const needle = `docstack-office-${child.pid}-`
    try {
      await new Promise<void>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString()
          if (out.includes("CONVERTED")) resolve()
        })
        child.on("exit", (code) => reject(new Error(`the child exited (${code}) before converting: ${out}`)))
      })
      // Two drivers and two soffice.bin, all named by the pipe.
      await expect.poll(() => processesWith(needle).length, { timeout: 15_000 }).toBe(4)
      child.kill("SIGKILL")
      await expect.poll(() => processesWith(needle), { timeout: 10_000, interval: 100 }).toEqual([])
      // The drivers removed the UNO pipes' socket files before they exited.
      expect(readdirSync("/tmp").filter((f) => f.startsWith("OSL_PIPE_") && f.includes(needle))).toEqual([])
    } finally {
      child.kill("SIGKILL")
    }
  }, 60_000)
})
