// The static pre-screen of a script, on a thread of its own (PreScreen.ts starts one per scan): it
// parses the draft with acorn and walks the syntax tree for what a served script must not do, so
// the model is asked only about scripts that pass. Parsing a large draft takes long enough to hold
// up the event loop, and a hostile one (deep nesting) can exhaust a stack or a heap: here it ends
// this thread only. The rules are in docs/gateway-scripts.md ("The pre-screen").
// workerData: the script's text. Answers { findings: string[] }, one line per rule broken (the
// first place it is broken, and how many more); none when the script passes.
// Plain JavaScript: it runs without the TypeScript loader.
import { parse } from "acorn"
import { parentPort, workerData } from "node:worker_threads"

const DYNAMIC_CODE = "runs code built from a string"
const NETWORK = "reaches the network"
const STORAGE = "reads the browser's cookies, storage or credentials"
const LOADS_CODE = "loads other code"

/** Names a script may not use, as a variable or as a property (`x.fetch`, `x["fetch"]`): aliases are caught too. */
const FORBIDDEN_NAMES = new Map([
  ["eval", DYNAMIC_CODE],
  ["Function", DYNAMIC_CODE],
  ["fetch", NETWORK],
  ["XMLHttpRequest", NETWORK],
  ["WebSocket", NETWORK],
  ["WebTransport", NETWORK],
  ["EventSource", NETWORK],
  ["sendBeacon", NETWORK],
  ["RTCPeerConnection", NETWORK],
  ["cookie", STORAGE],
  ["cookieStore", STORAGE],
  ["localStorage", STORAGE],
  ["sessionStorage", STORAGE],
  ["indexedDB", STORAGE],
  ["credentials", STORAGE],
  ["importScripts", LOADS_CODE],
  ["Worker", LOADS_CODE],
  ["SharedWorker", LOADS_CODE],
  ["serviceWorker", LOADS_CODE]
])

/** Names of the global object: reaching a property of it by a name computed at run time hides which one. */
const GLOBAL_OBJECTS = new Set(["window", "globalThis", "self", "top", "parent", "frames"])
/** Of those, the names no script uses for anything else: passing one around as a value is an alias of the global object. */
const UNAMBIGUOUS_GLOBALS = new Set(["window", "globalThis"])

const KEY_HOLDERS = new Set(["Property", "MethodDefinition", "PropertyDefinition"])
const LABEL_HOLDERS = new Set(["LabeledStatement", "BreakStatement", "ContinueStatement"])

const isString = (node) => node?.type === "Literal" && typeof node.value === "string"

/** The name a member expression reaches when it is fixed in the text (`a.b`, `a["b"]`), else undefined. */
const propertyName = (member) =>
  !member.computed && member.property.type === "Identifier"
    ? member.property.name
    : member.computed && isString(member.property)
    ? member.property.value
    : undefined

/** The last name of what a call is made on: `f` of `f()`, `write` of `document.write()`. */
const calleeName = (callee) =>
  callee.type === "Identifier" ? callee.name : callee.type === "MemberExpression" ? propertyName(callee) : undefined

/** `document` of `document.x` and of `window.document.x`. */
const objectName = (member) =>
  member.object.type === "Identifier"
    ? member.object.name
    : member.object.type === "MemberExpression"
    ? propertyName(member.object)
    : undefined

/** A string, a template or a concatenation: the first argument of a timer that would be run as code. */
const looksLikeText = (node) =>
  isString(node) || node?.type === "TemplateLiteral" || (node?.type === "BinaryExpression" && node.operator === "+")

/** Every rule broken at `node` (whose parent is `parent`, reached by its field `field`), as [rule, what]. */
const check = (node, parent, field) => {
  const broken = []
  switch (node.type) {
    case "Identifier": {
      const isKey = KEY_HOLDERS.has(parent?.type) && field === "key" && !parent.computed
      const isLabel = LABEL_HOLDERS.has(parent?.type) && field === "label"
      if (isKey || isLabel) break
      if (FORBIDDEN_NAMES.has(node.name)) broken.push([`uses ${node.name}`, FORBIDDEN_NAMES.get(node.name)])
      // `window.x`, `x.window` and `typeof window` name it without handing it on.
      const named = (parent?.type === "MemberExpression" && (field === "object" || !parent.computed)) ||
        (parent?.type === "UnaryExpression" && parent.operator === "typeof")
      if (UNAMBIGUOUS_GLOBALS.has(node.name) && !named) {
        broken.push([`uses ${node.name} as a value`, "passes the global object around, which hides what is reached"])
      }
      break
    }
    case "MemberExpression": {
      if (node.computed && isString(node.property) && FORBIDDEN_NAMES.has(node.property.value)) {
        broken.push([`uses ${node.property.value}`, FORBIDDEN_NAMES.get(node.property.value)])
      }
      if (
        node.object.type === "Identifier" && GLOBAL_OBJECTS.has(node.object.name) && propertyName(node) === undefined
      ) {
        broken.push([`reads ${node.object.name}[...]`, "reaches a global by a name computed at run time"])
      }
      break
    }
    case "CallExpression":
    case "NewExpression": {
      const name = calleeName(node.callee)
      if ((name === "setTimeout" || name === "setInterval") && looksLikeText(node.arguments[0])) {
        broken.push([`calls ${name} with text`, DYNAMIC_CODE])
      }
      if ((name === "write" || name === "writeln") && node.callee.type === "MemberExpression") {
        if (objectName(node.callee) === "document") broken.push([`calls document.${name}`, DYNAMIC_CODE])
      }
      if (name === "constructor") broken.push(["calls a constructor property", "reaches Function without naming it"])
      if ((name === "createElement" || name === "createElementNS") && node.arguments.some(isString)) {
        const tag = node.arguments.find(isString).value.toLowerCase()
        if (tag === "script" || tag.endsWith(":script")) broken.push(["creates a script element", LOADS_CODE])
      }
      break
    }
    case "ImportExpression":
      broken.push(["calls import()", LOADS_CODE])
      break
  }
  return broken
}

/** The syntax tree's nodes below `node` with where each hangs, without recursion (a hostile tree can be deep). */
function* nodes(root) {
  const stack = [{ node: root, parent: undefined, field: undefined }]
  while (stack.length > 0) {
    const entry = stack.pop()
    yield entry
    for (const [field, value] of Object.entries(entry.node)) {
      if (field === "loc") continue
      const children = Array.isArray(value) ? value : [value]
      for (let i = children.length - 1; i >= 0; i--) {
        const child = children[i]
        if (child !== null && typeof child === "object" && typeof child.type === "string") {
          stack.push({ node: child, parent: entry.node, field })
        }
      }
    }
  }
}

const screen = (source) => {
  let tree
  try {
    // A classic script, as a page's <script src> runs it; module syntax does not parse.
    tree = parse(source, { ecmaVersion: "latest", sourceType: "script", locations: true })
  } catch (error) {
    return [`The script does not parse as JavaScript: ${error instanceof Error ? error.message : String(error)}`]
  }
  /** Per rule broken: where first, and how many times. */
  const found = new Map()
  for (const { field, node, parent } of nodes(tree)) {
    for (const [rule, why] of check(node, parent, field)) {
      const known = found.get(rule)
      if (known) known.count++
      else found.set(rule, { why, line: node.loc.start.line, column: node.loc.start.column + 1, count: 1 })
    }
  }
  return [...found.entries()]
    .sort(([, a], [, b]) => a.line - b.line || a.column - b.column)
    .map(([rule, { column, count, line, why }]) =>
      `Line ${line}, column ${column}: ${rule} (${why})${count > 1 ? `, and ${count - 1} more time(s)` : ""}`
    )
}

let findings
try {
  findings = screen(workerData)
} catch (error) {
  findings = [`The script could not be screened: ${error instanceof Error ? error.message : String(error)}`]
}
parentPort.postMessage({ findings })
