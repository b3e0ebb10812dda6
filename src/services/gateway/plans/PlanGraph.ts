/**
 * The rules of a plan's node graph that need no database: unique IDs, every reference to a node
 * of the plan, paths that start where a context has something, conditions that branch to other
 * nodes, and no cycle. Pure functions: the plans service adds the checks of stored records
 * (prompts, agents, nested plans) and of template syntax. docs/gateway-plans.md states the rules.
 */
import type { Binding, ParallelWork, PlanGraphNode } from "../../../schemas/gateway/Plans.ts"

/** `nodes.<id>` written in a template: the node reads that node's output, so it runs after it. */
const MENTION = /\bnodes\.([A-Za-z][A-Za-z0-9_-]*)/g

type Work = PlanGraphNode | ParallelWork

const bindingsOf = (work: Work): ReadonlyArray<Binding> => {
  switch (work.type) {
    case "PROMPT":
      return Object.values(work.variables ?? {})
    case "TOOL":
      return Object.values(work.arguments ?? {})
    case "PLAN":
      return Object.values(work.input ?? {})
    default:
      return []
  }
}

/** Every template of a node's work (its PARALLEL run's included), for the syntax check and the mentions. */
export const templatesOf = (work: Work): ReadonlyArray<string> => {
  const bound = bindingsOf(work).flatMap((binding) => (typeof binding === "string" ? [binding] : []))
  switch (work.type) {
    case "LLM":
      return [work.template]
    case "AGENT":
      return [work.input]
    case "CONDITION":
      return [work.if]
    case "PARALLEL":
      return templatesOf(work.run)
    default:
      return bound
  }
}

/** Every `{from}` path of a node's work, and a PARALLEL node's `items`. */
const pathsOf = (work: Work): ReadonlyArray<{ readonly path: string; readonly inRun: boolean }> => {
  const own = bindingsOf(work).flatMap((binding) =>
    typeof binding === "string" ? [] : [{ path: binding.from, inRun: false }]
  )
  return work.type === "PARALLEL"
    ? [{ path: work.items, inRun: false }, ...pathsOf(work.run).map(({ path }) => ({ path, inRun: true }))]
    : own
}

/** The nodes a node runs after: `dependsOn`, the nodes it reads (templates and paths). */
const readsOf = (node: PlanGraphNode): ReadonlyArray<string> => {
  const mentioned = templatesOf(node).flatMap((template) => [...template.matchAll(MENTION)].map((m) => m[1]!))
  const fromPaths = pathsOf(node).flatMap(({ path }) => {
    const [root, id] = path.split(".")
    return root === "nodes" && id !== undefined ? [id] : []
  })
  return [...new Set([...(node.dependsOn ?? []), ...mentioned, ...fromPaths])]
}

/**
 * The nodes each node runs after: those it reads, and the conditions that branch to it (a branch's
 * node runs after the condition that decides whether it runs). References to nodes the plan does
 * not have are kept: graphProblems names them.
 */
export const runsAfter = (nodes: ReadonlyArray<PlanGraphNode>): ReadonlyMap<string, ReadonlyArray<string>> => {
  const edges = new Map<string, Array<string>>(nodes.map((node) => [node.id, [...readsOf(node)]]))
  for (const node of nodes) {
    if (node.type !== "CONDITION") continue
    for (const target of [...(node.then ?? []), ...(node.else ?? [])]) {
      if (target !== node.id) edges.get(target)?.push(node.id)
    }
  }
  return edges
}

/** The first problem of a path's start, if any. */
const pathProblem = (node: PlanGraphNode, path: string, inRun: boolean): string | undefined => {
  const [root, id] = path.split(".")
  if (root === "input") return undefined
  if (root === "nodes") {
    return id === undefined ? `node '${node.id}': the path '${path}' names no node (nodes.<id>.output)` : undefined
  }
  if ((root === "item" || root === "index") && inRun) return undefined
  return `node '${node.id}': the path '${path}' must start with input or nodes.<id>${
    node.type === "PARALLEL" ? " (item and index only inside run)" : ""
  }`
}

/** A cycle of `edges` (node → the nodes it runs after), as the IDs around it, if any. */
const findCycle = (ids: ReadonlyArray<string>, edges: ReadonlyMap<string, ReadonlyArray<string>>) => {
  const state = new Map<string, "visiting" | "done">()
  const stack: Array<string> = []
  const visit = (id: string): ReadonlyArray<string> | undefined => {
    if (state.get(id) === "done") return undefined
    if (state.get(id) === "visiting") return [...stack.slice(stack.indexOf(id)), id]
    state.set(id, "visiting")
    stack.push(id)
    for (const next of edges.get(id) ?? []) {
      const cycle = visit(next)
      if (cycle) return cycle
    }
    stack.pop()
    state.set(id, "done")
    return undefined
  }
  for (const id of ids) {
    const cycle = visit(id)
    if (cycle) return cycle
  }
  return undefined
}

/** Every problem of the graph, each a sentence naming the node; empty when the graph is valid. */
export const graphProblems = (
  nodes: ReadonlyArray<PlanGraphNode>,
  output: string | null | undefined
): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const ids = new Set<string>()
  for (const node of nodes) {
    if (ids.has(node.id)) problems.push(`two nodes have the ID '${node.id}'`)
    ids.add(node.id)
  }
  for (const node of nodes) {
    for (const read of readsOf(node)) {
      if (!ids.has(read)) problems.push(`node '${node.id}' refers to node '${read}', which the plan does not have`)
    }
    for (const { inRun, path } of pathsOf(node)) {
      const problem = pathProblem(node, path, inRun)
      if (problem) problems.push(problem)
    }
    if (node.type === "CONDITION") {
      const thenIds = node.then ?? []
      const elseIds = node.else ?? []
      for (const target of [...thenIds, ...elseIds]) {
        if (target === node.id) problems.push(`condition '${node.id}' branches to itself`)
        else if (!ids.has(target)) {
          problems.push(`condition '${node.id}' branches to node '${target}', which the plan does not have`)
        }
      }
      for (const both of thenIds.filter((id) => elseIds.includes(id))) {
        problems.push(`condition '${node.id}' has node '${both}' in both branches`)
      }
    }
  }
  if (output !== null && output !== undefined && !ids.has(output)) {
    problems.push(`the output node '${output}' is not a node of the plan`)
  }
  // Edges to missing nodes are left out (named above), so a cycle here is one between real nodes.
  const edges = new Map([...runsAfter(nodes)].map(([id, after]) => [id, after.filter((a) => ids.has(a))]))
  const cycle = findCycle([...ids], edges)
  if (cycle) problems.push(`the nodes form a cycle: ${cycle.join(" → ")} (each runs after the next)`)
  return problems
}

/** The stored records a plan refers to, by kind, for the service to check. */
export const recordsOf = (nodes: ReadonlyArray<PlanGraphNode>) => {
  const prompts: Array<{ readonly node: string; readonly promptId: string; readonly version?: number }> = []
  const agents: Array<{ readonly node: string; readonly agentId: string }> = []
  const plans: Array<{ readonly node: string; readonly planId: string }> = []
  nodes.forEach((node) => {
    for (const work of node.type === "PARALLEL" ? [node.run] : [node]) {
      if (work.type === "PROMPT") {
        prompts.push({
          node: node.id,
          promptId: work.promptId,
          ...(work.version === undefined ? {} : { version: work.version })
        })
      }
      if (work.type === "AGENT") agents.push({ node: node.id, agentId: work.agentId })
      if (work.type === "PLAN") plans.push({ node: node.id, planId: work.planId })
    }
  })
  const templates = nodes.flatMap((node) => templatesOf(node).map((template) => ({ node: node.id, template })))
  return { prompts, agents, plans, templates }
}
