/**
 * The import graph of the source tree, folder by folder: which feature folder imports which, read
 * from the code's own import statements. `npm run import-graph` prints it as a Mermaid diagram
 * (docs/architecture.md shows it); test/architecture.test.ts checks that no two folders import
 * each other, directly or around a loop.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(fileURLToPath(new URL("..", import.meta.url)))

/** Every TypeScript file under `dir`, relative to the repository root. */
const sourceFiles = (dir: string): Array<string> =>
  readdirSync(path.join(root, dir)).flatMap((name) => {
    const relative = path.join(dir, name)
    if (statSync(path.join(root, relative)).isDirectory()) return sourceFiles(relative)
    return /\.(ts|mjs)$/.test(name) ? [relative] : []
  })

/**
 * The folder a file belongs to, as the plan of the house names folders: a feature of a service
 * (`src/services/broker/pages`), a service's HTTP or schema folder (`src/http/broker`), or one of
 * the shared ones (`src/services/common`, `src/layers`).
 */
export const folderOf = (file: string) => {
  const parts = file.split(path.sep)
  // A service's feature folder; a service without features (the reference provider) is one folder.
  if (parts[1] === "services" && parts[2] !== "common" && parts.length > 4) return parts.slice(0, 4).join("/")
  return parts.slice(0, 3).join("/")
}

/** `import … from "./x"`, `export … from "./x"`, `import "./x"` and `import("./x")`. */
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^"']*?from\s*["'](\.{1,2}\/[^"']+)["']|(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g

/** Each file's relative imports, resolved to repository paths. */
export const fileImports = (): Map<string, Array<string>> =>
  new Map(
    sourceFiles("src").map((file) => {
      const text = readFileSync(path.join(root, file), "utf8")
      const targets = [...text.matchAll(IMPORT)].map((m) =>
        path.normalize(path.join(path.dirname(file), m[1] ?? m[2] ?? m[3]!))
      )
      return [file, targets]
    })
  )

/** Folder → the folders it imports (itself left out), with the files that make each arrow. */
export const folderGraph = () => {
  const graph = new Map<string, Map<string, Array<string>>>()
  for (const [file, targets] of fileImports()) {
    const from = folderOf(file)
    const arrows = graph.get(from) ?? new Map<string, Array<string>>()
    graph.set(from, arrows)
    for (const target of targets) {
      const to = folderOf(target)
      if (to !== from) arrows.set(to, [...(arrows.get(to) ?? []), `${file} -> ${target}`])
    }
  }
  return graph
}

/** The loops of folders that import each other (each found once, as the path that closes it). */
export const folderCycles = (graph = folderGraph()) => {
  const cycles: Array<Array<string>> = []
  const state = new Map<string, "open" | "done">()
  const stack: Array<string> = []
  const visit = (folder: string) => {
    state.set(folder, "open")
    stack.push(folder)
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next])
      else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(folder, "done")
  }
  for (const folder of [...graph.keys()].sort()) if (!state.has(folder)) visit(folder)
  return cycles
}

/** The graph of the services' feature folders as a Mermaid flowchart, one subgraph per service. */
export const mermaid = (graph = folderGraph()) => {
  const id = (folder: string) => folder.replace(/^src\//, "").replace(/[^A-Za-z0-9]/g, "_")
  const label = (folder: string) => folder.replace(/^src\/services\/(broker|gateway)\//, "").replace(/^src\//, "")
  const folders = [...new Set([...graph.keys(), ...[...graph.values()].flatMap((arrows) => [...arrows.keys()])])]
    .filter((f) => f.startsWith("src/services/"))
    .sort()
  const lines = ["flowchart TD"]
  for (const service of ["broker", "gateway"]) {
    lines.push(`  subgraph ${service}`)
    for (const folder of folders.filter((f) => f.startsWith(`src/services/${service}/`))) {
      lines.push(`    ${id(folder)}[${label(folder)}]`)
    }
    lines.push("  end")
  }
  // Services without feature folders (the reference provider) stand as one box each.
  for (const folder of folders.filter((f) => f.split("/").length === 3 && f !== "src/services/common")) {
    lines.push(`  ${id(folder)}[${folder.split("/")[2]}]`)
  }
  lines.push(`  ${id("src/services/common")}[common]`)
  for (const from of folders) {
    for (const to of [...(graph.get(from)?.keys() ?? [])].filter((t) => t.startsWith("src/services/")).sort()) {
      // Everything stands on common: its arrows would only clutter the picture.
      if (to !== "src/services/common") lines.push(`  ${id(from)} --> ${id(to)}`)
    }
  }
  return lines.join("\n")
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(mermaid())
  const cycles = folderCycles()
  if (cycles.length > 0) {
    console.error(`\nFolders that import each other:\n${cycles.map((c) => `  ${c.join(" -> ")}`).join("\n")}`)
    process.exitCode = 1
  }
}
