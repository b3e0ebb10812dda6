/**
 * Search over positioned runs: folding, ranges inside runs, boxes of matched pieces.
 */
import { describe, expect, it } from "@effect/vitest"
import type { TextPosition } from "../../../src/schemas/broker/Content.ts"
import { compilePattern, InvalidSearchPattern, searchRuns } from "../../../src/services/broker/text/TextSearch.ts"
import { textRun } from "../../support/text-runs.ts"

const run = (text: string, x: number, y: number, charWidth = 5) => textRun(text, x, y, { charWidth })

const options = (
  searchText: string,
  more: Partial<{ caseSensitive: boolean; accentSensitive: boolean; regex: boolean }> = {}
) => ({
  searchText,
  caseSensitive: false,
  accentSensitive: false,
  regex: false,
  ...more
})

const find = (runs: ReadonlyArray<TextPosition>, searchText: string, more: Parameters<typeof options>[1] = {}) =>
  searchRuns(0, runs, compilePattern(options(searchText, more)), more.accentSensitive ?? false)

describe("searchRuns", () => {
  it("finds a word inside a run and cuts its box from the character widths", () => {
    const { hits, matches } = find([run("The Naïve Café", 100, 50)], "naive cafe")
    expect(hits).toHaveLength(1)
    expect(hits[0]!.textRangeList).toEqual([{ firstCharacter: 4, lastCharacter: 13 }])
    expect(matches.map((m) => [m.text, m.position.x, m.position.w])).toEqual([["Naïve Café", 120, 50]])
  })

  it("matches across runs of one line and across lines, one piece per run", () => {
    const runs = [run("loop", 0, 0), run("traces", 25, 0), run("are", 0, 20), run("hot", 20, 20)]
    const { hits, matches } = find(runs, "loop traces are")
    expect(hits.map((h) => h.positionText.text)).toEqual(["loop", "traces", "are"])
    expect(matches.map((m) => m.text)).toEqual(["loop", "traces", "are"])
    // Runs that touch are one word: "ho" + "t" is found as "hot", not "ho t".
    expect(find([run("ho", 0, 0), run("t", 10, 0)], "hot").matches.map((m) => m.text)).toEqual(["ho", "t"])
  })

  it("honours case, accents and regular expressions when asked", () => {
    const runs = [run("Résumé RESUME resume", 0, 0)]
    expect(find(runs, "resume").hits[0]!.textRangeList).toHaveLength(3)
    expect(find(runs, "resume", { caseSensitive: true }).hits[0]!.textRangeList).toHaveLength(1)
    expect(find(runs, "resume", { accentSensitive: true }).hits[0]!.textRangeList).toHaveLength(2)
    expect(find(runs, "Résumé", { caseSensitive: true, accentSensitive: true }).hits[0]!.textRangeList).toEqual([{
      firstCharacter: 0,
      lastCharacter: 5
    }])
    expect(find([run("a1 b22 c333", 0, 0)], "\\d{2,}", { regex: true }).matches.map((m) => m.text)).toEqual([
      "22",
      "333"
    ])
    expect(find([run("1+1=2", 0, 0)], "1+1").matches.map((m) => m.text)).toEqual(["1+1"])
  })

  it("folds compatibility forms: ligatures and Arabic presentation forms match plain letters", () => {
    expect(find([run("ﬁnal ofﬁce", 0, 0)], "office").matches.map((m) => m.text)).toEqual(["ofﬁce"])
    expect(find([run("ﻟﻌﺮﺑﻴﺔ", 0, 0)], "لعربية").hits).toHaveLength(1)
  })

  it("runs a pattern that backtracks exponentially in other engines on a long page (RE2, linear time)", () => {
    const page = [run(`${"a".repeat(5_000)}!`, 0, 0)]
    expect(find(page, "(\\w+\\s?)+$", { regex: true }).hits).toEqual([])
    expect(find(page, "(a|aa)+!", { regex: true }).matches).toHaveLength(1)
  })

  it("skips empty regex matches and refuses invalid patterns", () => {
    expect(find([run("abc", 0, 0)], "x*", { regex: true }).hits).toEqual([])
    expect(() => compilePattern(options("(", { regex: true }))).toThrow(InvalidSearchPattern)
    expect(() => compilePattern(options("(a)\\1", { regex: true }))).toThrow(InvalidSearchPattern)
  })
})
