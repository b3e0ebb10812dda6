/**
 * Composite requests as the broker's folder trees (ProviderFolder, POST /registry/folders): a
 * document URL `loadingQuery?<provider parameters>` is a provider's file named by those parameters,
 * an http(s) URL a file the broker fetches from it (`{documentUrl}`), and a node with `references`
 * a folder (docs/viewer.md "Composite documents"). Checked whole before any broker is called.
 */
import { Config, Effect } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import type { ProviderDocument, ProviderFile, ProviderFolder } from "../../../schemas/provider/ProviderContract.ts"
import type { CompositeNode } from "../../../schemas/viewer/Servlets.ts"

/** The most nodes (documents and folders) one composite request may hold. */
export const maxNodesConfig = Config.integer("VIEWER_COMPOSITE_MAX_NODES").pipe(Config.withDefault(5_000))

/** A container's title when the request gives none. */
export const DEFAULT_CONTAINER_TITLE = "Document container"

const invalid = (message: string) => new InvalidRequest({ message })

/**
 * A title for a document given none: the last path segment of what names it (`case-42/reply.pdf`
 * gives `reply.pdf`), since the broker shows a part's given name until it is fetched.
 */
const nameFrom = (value: string) => value.replace(/[/\\]+$/, "").split(/[/\\]/).pop() || value

/** A URL's path as text (`My%20file.pdf` shows as `My file.pdf`). */
const pathOf = (url: string) => {
  const { pathname } = new URL(url)
  try {
    return decodeURIComponent(pathname)
  } catch {
    return pathname
  }
}

/** The file a document URL names, titled `title` (else after its name), or a message saying why it names none. */
export const fileOf = (url: string, title: string | undefined): ProviderFile | string => {
  const query = /^(?:[^?]*\/)?loadingQuery\?(.*)$/s.exec(url)
  if (query !== null) {
    const parameters: Record<string, string> = {}
    for (const [key, value] of new URLSearchParams(query[1])) {
      if (key in parameters) return `'${url}' gives the parameter ${key} twice`
      parameters[key] = value
    }
    return Object.keys(parameters).length === 0
      ? `'${url}' names no document: loadingQuery? needs the provider's parameters (id=…)`
      : { type: "file", name: title ?? nameFrom(Object.values(parameters)[0]!), parameters }
  }
  if (/^https?:\/\/[^/?#\s]+/i.test(url) && URL.canParse(url)) {
    return { type: "file", name: title ?? nameFrom(pathOf(url)), parameters: { documentUrl: url } }
  }
  return `'${url}' is neither loadingQuery?<parameters> nor an http(s) URL`
}

const holdsDocument = (node: CompositeNode): boolean =>
  node.queryUrl !== undefined || (node.references?.some(holdsDocument) ?? false)

/**
 * The folder a composite request describes: `references` make a folder, `queryUrl` (which wins
 * over references) a file. A request that is a single document is a container of that one
 * document. Fails with a 400 naming the node at fault for a node with neither, a document URL of
 * another form, a folder holding no document at any depth, or more than `maxNodes` nodes.
 */
export const folderOf = (root: CompositeNode, maxNodes: number): Effect.Effect<ProviderFolder, InvalidRequest> =>
  Effect.suspend(() => {
    let nodes = 0
    const problems: Array<string> = []
    const visit = (node: CompositeNode, where: string): ProviderDocument | undefined => {
      nodes += 1
      if (nodes > maxNodes) return undefined
      if (node.queryUrl !== undefined) {
        const file = fileOf(node.queryUrl, node.title)
        if (typeof file === "string") problems.push(`${where}: ${file}`)
        return typeof file === "string" ? undefined : file
      }
      if (node.references === undefined) {
        problems.push(`${where} has neither queryUrl (a document) nor references (a folder)`)
        return undefined
      }
      const contents = node.references.flatMap((child, i) => {
        const document = visit(child, `${where}.references[${i}]`)
        return document === undefined ? [] : [document]
      })
      if (!holdsDocument(node)) problems.push(`${where} is a folder with no document in it`)
      return { type: "folder", name: node.title ?? DEFAULT_CONTAINER_TITLE, parameters: {}, contents }
    }
    const top = visit(root, "the request")
    if (nodes > maxNodes) {
      return Effect.fail(
        invalid(`The request has more than ${maxNodes} nodes (VIEWER_COMPOSITE_MAX_NODES): split it`)
      )
    }
    if (problems.length > 0 || top === undefined) return Effect.fail(invalid(problems.join("; ")))
    return Effect.succeed<ProviderFolder>(
      top.type === "folder"
        ? { ...top, name: root.title ?? DEFAULT_CONTAINER_TITLE }
        : { type: "folder", name: root.title ?? DEFAULT_CONTAINER_TITLE, parameters: {}, contents: [top] }
    )
  })
