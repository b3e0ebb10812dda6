/**
 * A provider folder's files, fetched the first time anything asks for them (a layout, a page, a
 * merged download) with their own parameters and the credentials of the folder's latest opening,
 * and registered as documents `<folder id>/<index>` (the LinkedParts port of the documents feature).
 * A file whose parameters are only `documentUrl` (an http(s) URL) is not the provider's: the broker
 * fetches it itself, as POST /accessor/load does, so that one folder can mix a provider's documents
 * with documents at URLs.
 */
import { Effect, Layer, Option, Stream } from "effect"
import { DocumentNotFound, DocumentProcessingFailed } from "../../../schemas/broker/Document.ts"
import { makeKeyedLocks } from "../../common/KeyedLocks.ts"
import type { PartLink } from "../composite/Parts.ts"
import { DocumentRegistration } from "../documents/DocumentRegistration.ts"
import { LinkedParts } from "../documents/LinkedParts.ts"
import { UrlFetcher } from "../documents/UrlFetcher.ts"
import { DocumentRegistry } from "../registry/DocumentRegistry.ts"
import { ProviderClient } from "./ProviderClient.ts"
import { ProviderSettings } from "./ProviderSettings.ts"
import { ProviderStore } from "./ProviderStore.ts"

/**
 * A link the broker fetches from a URL: `documentUrl` alone, http or https (never a local file: a
 * provider's answer must not open the broker's disk, whatever FILE_URL_ROOTS allows /accessor/load).
 */
export const isUrlLink = (parameters: PartLink["parameters"]) => {
  const names = Object.keys(parameters)
  return names.length === 1 && names[0] === "documentUrl" && /^https?:\/\//i.test(parameters.documentUrl!)
}

export const ProviderPartsLive = Layer.effect(
  LinkedParts,
  Effect.gen(function*() {
    const { providers } = yield* ProviderSettings
    const client = yield* ProviderClient
    const store = yield* ProviderStore
    const registration = yield* DocumentRegistration
    const registry = yield* DocumentRegistry
    const urls = yield* UrlFetcher
    const locks = makeKeyedLocks()

    /** The link's bytes: from its URL (private addresses refused as for /accessor/load), else from its provider. */
    const fetchLink = (id: string, link: PartLink, failed: (message: string) => DocumentProcessingFailed) =>
      Effect.gen(function*() {
        if (isUrlLink(link.parameters)) {
          const fetched = yield* urls.fetch(link.parameters.documentUrl!).pipe(
            Effect.mapError((e) => failed(e.message))
          )
          return Stream.mapError(fetched.body, (e) => failed(e.message))
        }
        const rootId = id.split("/")[0]!
        const root = yield* store.find(rootId)
        if (Option.isNone(root)) {
          return yield* failed(`${rootId} was not opened through a provider, so its part ${id} cannot be fetched`)
        }
        const provider = providers.get(root.value.provider)
        if (provider === undefined) {
          return yield* failed(`The provider ${root.value.provider} of this folder is no longer configured (PROVIDERS)`)
        }
        const answer = yield* client.document(provider, { ...root.value.credentials, ...link.parameters }).pipe(
          Effect.catchTags({
            ProviderDocumentNotFound: (e) => Effect.fail(new DocumentNotFound({ documentId: id, message: e.message })),
            ProviderAccessDenied: (e) => Effect.fail(failed(e.message)),
            ProviderUnavailable: (e) => Effect.fail(failed(e.message)),
            InvalidRequest: (e) => Effect.fail(failed(e.message))
          })
        )
        if (answer.kind === "folder") {
          return yield* failed(`Provider ${provider.name} answered a folder for ${link.name}, listed as a file`)
        }
        return Stream.mapError(answer.body, (e) => failed(e.message))
      })

    const fetchPart = (id: string, link: PartLink) =>
      Effect.gen(function*() {
        const failed = (message: string) => new DocumentProcessingFailed({ documentId: id, message })
        // Another request may have fetched it while this one waited for the lock.
        const known = yield* registry.find(id)
        if (Option.isSome(known)) return known.value
        const body = yield* fetchLink(id, link, failed)
        const stored = yield* registration.storeFetched(body).pipe(Effect.mapError((e) => failed(e.message)))
        // Titled as the folder lists it, as its layout shows it.
        yield* registration.registerFetched(id, stored, { title: link.name }).pipe(
          // Another broker process registered it meanwhile: the same bytes, so as good.
          Effect.catchTag("DocumentAlreadyExists", () => Effect.void),
          Effect.mapError((e) => failed(e.message))
        )
        const registered = yield* registry.find(id)
        return Option.isSome(registered) ? registered.value : yield* failed(`${id} vanished while it was registered`)
      })

    return {
      open: (id: string, link: PartLink) => locks.withLock(id)(fetchPart(id, link))
    }
  })
).pipe(
  Layer.provide([
    ProviderSettings.Default,
    ProviderClient.Default,
    ProviderStore.Default,
    DocumentRegistration.Default,
    DocumentRegistry.Default,
    UrlFetcher.Default
  ])
)
