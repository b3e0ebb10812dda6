/**
 * How a request names a document of the reference provider, read from its document-identifying
 * parameters alone (no file is touched here): store type A names a path below the root with `id`
 * (below one of the root's top-level folders when `objectStoreName` is given), store type B with
 * `nodeRef=workspace://SpacesStore/<path>`. A folder's children are named again in the style the
 * request used, so that a client can fetch each of them the way it fetched the folder.
 */
import { Effect } from "effect"
import type {
  ProviderParameters,
  STORE_A_PARAMETERS,
  STORE_B_PARAMETERS
} from "../../schemas/provider/ProviderContract.ts"
import { DocumentNotFound, InvalidRequest } from "../../schemas/provider/ProviderErrors.ts"

type StoreParameter = (typeof STORE_A_PARAMETERS)[number] | (typeof STORE_B_PARAMETERS)[number]

/** The document-identifying query parameters of a request, all optional. */
export type DocumentParameters = { readonly [K in StoreParameter]?: string | undefined }

/** The only store a node reference may name: the provider's root stands for it. */
export const NODE_REF_STORE = "workspace://SpacesStore"

export interface DocumentName {
  /** The top-level folder of the root the path is relative to (`objectStoreName`), if any. */
  readonly store: string | undefined
  /** The path's segments below the root (or the store); none for the root itself. */
  readonly segments: ReadonlyArray<string>
  /** The parameters that fetch the document at `segments` (below the same root or store). */
  readonly parametersOf: (segments: ReadonlyArray<string>) => ProviderParameters
  /** The name as the request wrote it, for messages (`id 'a/b.pdf'`). */
  readonly written: string
}

/** A value quoted in a message, cut short: a message must not grow with what a client sends. */
const quoted = (value: string) => `'${value.length > 200 ? `${value.slice(0, 200)}…` : value}'`

/**
 * The segments of a path below the root. Empty segments (a trailing or doubled '/') are dropped;
 * a leading '/', a NUL byte, and any segment starting with '.' ('..', '.', hidden files such as
 * `.access.json` or the `.annotations` folder) name nothing: 404, the answer for a missing file,
 * so that no path tells a caller more about the disk than one that is really missing.
 */
const segmentsOf = (relative: string, written: string): Effect.Effect<Array<string>, DocumentNotFound> =>
  relative.startsWith("/") || relative.includes("\u0000") ||
    relative.split("/").some((segment) => segment.startsWith("."))
    ? Effect.fail(
      new DocumentNotFound({
        message:
          `No document at ${written}: a name is a path inside the provider's root, without a leading '/', '..' or hidden ('.') segments`
      })
    )
    : Effect.succeed(relative.split("/").filter((segment) => segment !== ""))

/** Empty parameters count as absent: a client that forwards every parameter sends empty ones. */
const given = (value: string | undefined) => value === undefined || value === "" ? undefined : value

const byNodeRef = (raw: string) => {
  const written = `nodeRef ${quoted(raw)}`
  // The HTTP router folds '//' into '/' in the whole URL, query included: a node reference written
  // unencoded in a URL (curl, a browser's address bar) arrives as `workspace:/SpacesStore/…`.
  const nodeRef = raw.replace(/^workspace:\/(?!\/)/, "workspace://")
  if (nodeRef !== NODE_REF_STORE && !nodeRef.startsWith(`${NODE_REF_STORE}/`)) {
    return Effect.fail(
      new DocumentNotFound({
        message: `No document at ${written}: this provider answers only ${NODE_REF_STORE}/<path> node references`
      })
    )
  }
  return segmentsOf(nodeRef.slice(NODE_REF_STORE.length + 1), written).pipe(
    Effect.map((segments): DocumentName => ({
      store: undefined,
      segments,
      parametersOf: (child) => ({ nodeRef: `${NODE_REF_STORE}/${child.join("/")}` }),
      written
    }))
  )
}

const byId = (id: string, store: string | undefined, contentElement: string | undefined) =>
  Effect.gen(function*() {
    const written = store === undefined ? `id ${quoted(id)}` : `id ${quoted(id)} of store ${quoted(store)}`
    if (contentElement !== undefined && contentElement !== "0") {
      return yield* new DocumentNotFound({
        message: `No content element ${quoted(contentElement)} at ${written}: a file has one content element, 0`
      })
    }
    if (store !== undefined) {
      const storeSegments = yield* segmentsOf(store, `store ${quoted(store)}`)
      if (storeSegments.length !== 1) {
        return yield* new DocumentNotFound({
          message: `No store ${quoted(store)}: objectStoreName names one top-level folder of the provider's root`
        })
      }
    }
    // `id=/` (or an empty id) is the root, or the store, itself.
    const segments = id === "/" ? [] : yield* segmentsOf(id, written)
    return {
      store,
      segments,
      parametersOf: (child: ReadonlyArray<string>) => ({
        ...(store === undefined ? {} : { objectStoreName: store }),
        id: child.length === 0 ? "/" : child.join("/")
      }),
      written
    } satisfies DocumentName
  })

/**
 * The document a request names. `id` and `nodeRef` together, or neither, is a request the
 * provider cannot read: 400. `vsId`, `objectType` and `versionLabel` are accepted and ignored: a
 * file system keeps one version of a file.
 */
export const documentName = (
  parameters: DocumentParameters
): Effect.Effect<DocumentName, InvalidRequest | DocumentNotFound> => {
  const nodeRef = given(parameters.nodeRef)
  const store = given(parameters.objectStoreName)
  // An empty id is a name (the root), unlike the other empty parameters.
  const id = parameters.id
  if (nodeRef !== undefined && (id !== undefined || store !== undefined)) {
    return Effect.fail(
      new InvalidRequest({
        message: "Name a document either by id (and objectStoreName) or by nodeRef, not both"
      })
    )
  }
  if (nodeRef !== undefined) return byNodeRef(nodeRef)
  if (id !== undefined) return byId(id, store, given(parameters.contentElement))
  return Effect.fail(
    new InvalidRequest({
      message: store === undefined
        ? "Name a document with id=<path> (store type A) or nodeRef=workspace://SpacesStore/<path> (store type B)"
        : "objectStoreName needs id=<path inside the store> (id=/ for the store's top folder)"
    })
  )
}
