/**
 * The plan of the house, checked against the code (docs/architecture.md): feature folders import
 * downward only, so no two folders import each other, directly or around a loop.
 */
import { describe, expect, it } from "@effect/vitest"
import { folderCycles, folderGraph } from "../scripts/import-graph.ts"

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
})
