/**
 * compositeAccessorServlet: composite documents registered with a broker as folder trees (POST
 * /registry/folders), in one call (POST) or built child by child (GET, PUT…, PUT final) in the
 * database, so that no request needs the instance that served the one before
 * (docs/viewer.md "Composite documents").
 */
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import type { ProviderFolder } from "../../../schemas/provider/ProviderContract.ts"
import type { CompositeNode } from "../../../schemas/viewer/Servlets.ts"
import { ContainerNotFound } from "../../../schemas/viewer/ViewerErrors.ts"
import { DocumentAccess } from "../documents/DocumentAccess.ts"
import { DEFAULT_CONTAINER_TITLE, fileOf, folderOf, maxNodesConfig } from "./CompositeTree.ts"
import { Containers } from "./Containers.ts"

/** A container's ID, given when it is opened and kept by the broker at registration: the broker's own form. */
const newContainerId = () => `b64_${randomBytes(18).toString("base64url")}`

/**
 * A body's document URL: percent-decoded once, as a form-encoded value is, unless it already
 * reads as one (then its own escapes belong to its query).
 */
const documentUrlOf = (body: string) => {
  const text = body.trim()
  if (/^(https?:\/\/|(?:[^?]*\/)?loadingQuery\?)/i.test(text)) return text
  try {
    return decodeURIComponent(text.replaceAll("+", " "))
  } catch {
    return text
  }
}

export interface Opened {
  /** The broker's ID: what the session's current document records. */
  readonly brokerId: string
  /** The ID the browser is given. */
  readonly viewerId: string
}

export interface ContainerPut {
  readonly viewerId: string
  /** The document URL the body carries, undefined when there is none. */
  readonly body: string | undefined
  readonly final: boolean
  readonly title: string | undefined
}

export class Composites extends Effect.Service<Composites>()("docstack/viewer/Composites", {
  effect: Effect.gen(function*() {
    const access = yield* DocumentAccess
    const containers = yield* Containers
    const maxNodes = yield* maxNodesConfig

    /** The folder registered on the target weather prefers, under `documentId` when given. */
    const register = (folder: ProviderFolder, documentId?: string) =>
      access.create(
        (client) =>
          client.providers.openFolder({
            urlParams: documentId === undefined ? {} : { documentId },
            headers: {},
            payload: folder
          }).pipe(
            // Only documentation of the broker's group: the registration never answers it.
            Effect.catchTag("AnnotationNotFound", Effect.die)
          ),
        (answer) => answer.id
      )

    const notFound = (viewerId: string) =>
      new ContainerNotFound({
        documentId: viewerId,
        message: `No composite container '${viewerId}': open one with GET compositeAccessorServlet`
      })

    /** PUT final: the container registered under its own ID (once: a repeated final answers the same). */
    const finalize = (viewerId: string, brokerId: string, title: string | undefined) =>
      Effect.gen(function*() {
        const claimed = yield* containers.claim(brokerId, title)
        if (Option.isNone(claimed)) {
          const found = yield* containers.find(brokerId)
          if (Option.isNone(found)) return yield* notFound(viewerId)
          if (found.value.finalized) return { brokerId, viewerId }
          return yield* new InvalidRequest({
            message: `The container '${viewerId}' holds no document: add one with PUT before final`
          })
        }
        const { children, title: name } = claimed.value
        yield* register({ type: "folder", name, parameters: {}, contents: children }, brokerId).pipe(
          Effect.catchTag("DocumentAlreadyExists", () => Effect.void),
          Effect.tapError(() => containers.release(brokerId))
        )
        // The ID the browser holds names the registered document as it named the container.
        return { brokerId, viewerId }
      })

    return {
      /** POST: the whole tree at once; answers the new document. */
      create: Effect.fn("Composites.create")(function*(node: CompositeNode) {
        const folder = yield* folderOf(node, maxNodes)
        const { brokerId, viewerId } = yield* register(folder).pipe(
          Effect.catchTag("DocumentAlreadyExists", Effect.die)
        )
        return { brokerId, viewerId } satisfies Opened
      }),

      /** GET: a new empty container; answers its ID, which the registered document keeps. */
      open: Effect.fn("Composites.open")(function*(title: string | undefined) {
        const brokerId = newContainerId()
        yield* containers.create(brokerId, title ?? DEFAULT_CONTAINER_TITLE)
        return access.ids.encode(brokerId)
      }),

      /**
       * PUT: the body's document added as the container's last child, titled `title`; with `final`,
       * the container (after that child, if a body came with it) registered with a broker, `title`
       * naming the container when no child came with it. Answers the registered document with
       * `final`, none otherwise.
       */
      put: Effect.fn("Composites.put")(function*(request: ContainerPut) {
        const { viewerId } = request
        const brokerId = yield* access.brokerId(viewerId)
        if (request.body === undefined) {
          if (!request.final) {
            return yield* new InvalidRequest({ message: "The body is required without final: the document URL to add" })
          }
          return Option.some(yield* finalize(viewerId, brokerId, request.title))
        }
        const file = fileOf(documentUrlOf(request.body), request.title)
        if (typeof file === "string") return yield* new InvalidRequest({ message: `The body: ${file}` })
        const added = yield* containers.append(brokerId, file)
        if (Option.isNone(added)) {
          const found = yield* containers.find(brokerId)
          if (Option.isNone(found)) return yield* notFound(viewerId)
          return yield* new InvalidRequest({
            message: `The container '${viewerId}' is finalized: no document can be added to it`
          })
        }
        return request.final ? Option.some(yield* finalize(viewerId, brokerId, undefined)) : Option.none<Opened>()
      })
    }
  }),
  dependencies: [DocumentAccess.Default, Containers.Default]
}) {}
