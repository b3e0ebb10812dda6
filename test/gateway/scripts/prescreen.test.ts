/**
 * The static pre-screen's rules, one script each (docs/gateway-scripts.md, "The pre-screen"): what
 * plain page code may do passes; each thing a served script must not do is found with its place;
 * a script that does not parse, a hostile one (deep nesting) and one that overruns
 * SCRIPT_PRESCREEN_TIMEOUT are findings too, the process unharmed. On real time (`it.live`): the
 * timeout must fire.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { PreScreen } from "../../../src/services/gateway/scripts/PreScreen.ts"

const screen = (source: string, config: Record<string, string> = {}) =>
  PreScreen.pipe(
    Effect.flatMap((preScreen) => preScreen.screen(source)),
    Effect.provide(
      PreScreen.Default.pipe(
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(config)))))
      )
    )
  )

const PLAIN_PAGE_CODE = `
"use strict"
const banner = document.querySelector("#banner")
banner.textContent = "Welcome"
window.addEventListener("load", () => banner.classList.add("shown"))
setTimeout(() => banner.remove(), 5000)
if (typeof window !== "undefined" && window["innerWidth"] < 600) banner.hidden = true
const settings = { fetch: false, cookie: "none" }
class Widget { write() { return settings } }
outer: for (const item of [1, 2]) { if (item > 1) break outer }
new Widget().write()
`

describe("script pre-screen", () => {
  it.live("plain page code passes", () =>
    Effect.gen(function*() {
      expect(yield* screen(PLAIN_PAGE_CODE)).toEqual([])
    }))

  const broken: ReadonlyArray<readonly [string, string]> = [
    ["eval('1 + 1')", "Line 1, column 1: uses eval (runs code built from a string)"],
    ["const f = new Function('a', 'return a')", "Line 1, column 15: uses Function (runs code built from a string)"],
    ["window['eval']('x')", "Line 1, column 1: uses eval (runs code built from a string)"],
    ["setTimeout('alert(1)', 10)", "Line 1, column 1: calls setTimeout with text (runs code built from a string)"],
    [
      "window.setInterval(`tick()`, 10)",
      "Line 1, column 1: calls setInterval with text (runs code built from a string)"
    ],
    ["document.write('<p>hi</p>')", "Line 1, column 1: calls document.write (runs code built from a string)"],
    [
      "[].constructor.constructor('return this')()",
      "Line 1, column 1: calls a constructor property (reaches Function without naming it)"
    ],
    ["const get = window.fetch", "Line 1, column 20: uses fetch (reaches the network)"],
    ["navigator.sendBeacon('/x', 'y')", "Line 1, column 11: uses sendBeacon (reaches the network)"],
    ["const x = new XMLHttpRequest()", "Line 1, column 15: uses XMLHttpRequest (reaches the network)"],
    ["new WebSocket('wss://x')", "Line 1, column 5: uses WebSocket (reaches the network)"],
    [
      "localStorage.setItem('k', 'v')",
      "Line 1, column 1: uses localStorage (reads the browser's cookies, storage or credentials)"
    ],
    [
      "document['cookie'] = 'a=b'",
      "Line 1, column 1: uses cookie (reads the browser's cookies, storage or credentials)"
    ],
    [
      "document.body.append(document.createElement('SCRIPT'))",
      "Line 1, column 22: creates a script element (loads other code)"
    ],
    ["import('./more.js')", "Line 1, column 1: calls import() (loads other code)"],
    ["new Worker('w.js')", "Line 1, column 5: uses Worker (loads other code)"],
    [
      "const name = 'ev' + 'al'; window[name]('x')",
      "Line 1, column 27: reads window[...] (reaches a global by a name computed at run time)"
    ],
    [
      "const w = window; w.alert('x')",
      "Line 1, column 11: uses window as a value (passes the global object around, which hides what is reached)"
    ]
  ]
  for (const [source, finding] of broken) {
    it.live(`finds: ${source}`, () =>
      Effect.gen(function*() {
        expect(yield* screen(source)).toContain(finding)
      }))
  }

  it.live("each rule once, at its first place, with how many more; in the order of the script", () =>
    Effect.gen(function*() {
      expect(yield* screen("const a = 1\nfetch('/a')\neval('b')\nfetch('/c')\nfetch('/d')")).toEqual([
        "Line 2, column 1: uses fetch (reaches the network), and 2 more time(s)",
        "Line 3, column 1: uses eval (runs code built from a string)"
      ])
    }))

  it.live("a script that does not parse as a classic script is a finding", () =>
    Effect.gen(function*() {
      expect(yield* screen("let a = ;")).toEqual(["The script does not parse as JavaScript: Unexpected token (1:8)"])
      expect((yield* screen("import x from './x.js'"))[0]).toContain("does not parse")
    }))

  it.live("a hostile nesting ends in a finding, not in a crash", () =>
    Effect.gen(function*() {
      const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`
      const findings = yield* screen(deep)
      expect(findings).toHaveLength(1)
      expect(findings[0]).toMatch(/could not|does not parse/)
    }))

  it.live("a pre-screen over SCRIPT_PRESCREEN_TIMEOUT is a finding", () =>
    Effect.gen(function*() {
      const large = "document.title = 'x'\n".repeat(50_000)
      expect(yield* screen(large, { SCRIPT_PRESCREEN_TIMEOUT: "1 millis" })).toEqual([
        "The pre-screen did not finish within 1ms (SCRIPT_PRESCREEN_TIMEOUT)"
      ])
    }))
})
