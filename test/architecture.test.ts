/**
 * The plan of the house, checked against the code (docs/architecture.md): feature folders import
 * downward only, so no two folders import each other, directly or around a loop; the viewer reaches
 * brokers only through their contract; and no room is too large (STYLE.md: one job per file, about
 * 600 lines at most).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileImports, folderCycles, folderGraph } from "../scripts/import-graph.ts"

const LONGEST_FILE = 600

describe("architecture", () => {
  it("no two folders import each other, directly or around a loop", () => {
    const graph = folderGraph()
    const cycles = folderCycles(graph)
    const explained = cycles.map((cycle) =>
      cycle.slice(1).map((to, i) => `${cycle[i]} -> ${to} (${graph.get(cycle[i]!)!.get(to)![0]})`).join("\n  ")
    )
    expect(explained).toEqual([])
  })

  it("the engine, the registry and the shared folder stand on nothing of the features", () => {
    const graph = folderGraph()
    for (const ground of ["src/services/broker/engine", "src/services/broker/registry", "src/services/common"]) {
      const above = [...(graph.get(ground)?.keys() ?? [])].filter((to) =>
        to.startsWith("src/services/") && to !== "src/services/common"
      )
      expect(above, ground).toEqual([])
    }
  })

  it("the viewer knows the broker only by its contract (src/http/broker/Api.ts, src/schemas/broker)", () => {
    const viewer = [...fileImports()].filter(([file]) =>
      file.startsWith("src/services/viewer/") || file.startsWith("src/http/viewer/")
    )
    // The viewer's own files are there to be checked: a moved folder must not make this pass.
    expect(viewer.length).toBeGreaterThan(10)
    const intoBroker = viewer.flatMap(([file, targets]) =>
      targets.filter((target) =>
        target.startsWith("src/services/broker/") ||
        (target.startsWith("src/http/broker/") && target !== "src/http/broker/Api.ts")
      ).map((target) => `${file} -> ${target}`)
    )
    expect(intoBroker).toEqual([])
  })

  it(`no source, test or script file is over ${LONGEST_FILE} lines`, () => {
    const root = new URL("..", import.meta.url).pathname
    const files = execFileSync("git", ["ls-files", "src", "test", "scripts", "web"], { cwd: root, encoding: "utf8" })
      .split("\n")
      .filter((file) => /\.(ts|mjs|js|py|html)$/.test(file) && !file.startsWith("test/corpus/"))
    const long = files
      .map((file) => [file, readFileSync(`${root}${file}`, "utf8").split("\n").length - 1] as const)
      .filter(([, lines]) => lines > LONGEST_FILE)
    expect(long).toEqual([])
  })
})
