/**
 * POST /documents/{id}/metadata: metadata properties sent to the provider that holds the document
 * (its POST /documents/metadata, docs/providers.md), which merges and keeps them; the broker keeps
 * none. The document is the provider file opened through POST /registry/documents, or one file of
 * a provider folder (`<folder id>/<index>`, sent with that file's own parameters). Anything else
 * has no provider file to describe: 404 DocumentHasNoProvider.
 */
import { Effect, Option } from "effect"
import { DocumentHasNoProvider } from "../../../schemas/broker/Providers.ts"
import type { ProviderMetadata, ProviderParameters } from "../../../schemas/provider/ProviderContract.ts"
import { findEntry } from "../composite/Parts.ts"
import { DocumentResolver } from "../documents/DocumentResolver.ts"
import { ProviderClient } from "./ProviderClient.ts"
import { isUrlLink } from "./ProviderParts.ts"
import { ProviderSettings } from "./ProviderSettings.ts"
import { ProviderStore } from "./ProviderStore.ts"

export class MetadataProxy extends Effect.Service<MetadataProxy>()("docstack/MetadataProxy", {
  effect: Effect.gen(function*() {
    const { providers } = yield* ProviderSettings
    const client = yield* ProviderClient
    const store = yield* ProviderStore
    const resolver = yield* DocumentResolver

    const noProvider = (documentId: string, why: string) =>
      new DocumentHasNoProvider({ documentId, message: `${documentId} has no provider: ${why}` })

    /** The provider file a document ID stands for: the parameters that name it there. */
    const fileParameters = Effect.fn("MetadataProxy.fileParameters")(function*(documentId: string) {
      const [rootId, ...path] = documentId.split("/")
      // An unknown document is a 404 of its own, whatever its ID looks like.
      const root = yield* resolver.resolve(rootId!)
      const record = yield* store.find(rootId!)
      if (Option.isNone(record)) {
        return yield* noProvider(documentId, "it was not opened through POST /registry/documents or /registry/folders")
      }
      const isFolder = root.kind === "container" && root.format === "folder"
      if (path.length === 0) {
        return isFolder
          ? yield* noProvider(documentId, "it is a folder; each of its files has its own metadata")
          : { record: record.value, parameters: record.value.parameters }
      }
      const index = path.length === 1 && /^\d{1,9}$/.test(path[0]!) ? Number(path[0]) : Number.NaN
      const entry = isFolder ? findEntry(root.entries, index) : undefined
      if (entry === undefined) {
        // Not one of the folder's own entries: the ID names nothing, or a part inside a provider file.
        yield* resolver.resolve(documentId)
        return yield* noProvider(documentId, "it is a part of a provider's file, not a file the provider holds")
      }
      if (entry.kind !== "link") return yield* noProvider(documentId, "it is a subfolder")
      if (isUrlLink(entry.parameters)) return yield* noProvider(documentId, "it is fetched from a URL")
      return { record: record.value, parameters: entry.parameters }
    })

    return {
      update: Effect.fn("MetadataProxy.update")(
        function*(documentId: string, changes: ProviderMetadata, asked: ProviderParameters) {
          const { parameters, record } = yield* fileParameters(documentId)
          const provider = providers.get(record.provider)
          if (provider === undefined) {
            return yield* noProvider(documentId, `its provider ${record.provider} is no longer configured (PROVIDERS)`)
          }
          // Who asks, when the request says so; else who opened the document last.
          const credentials = {
            ...record.credentials,
            ...Object.fromEntries(Object.entries(asked).filter(([name]) => provider.authenticationParameters.has(name)))
          }
          return yield* client.updateMetadata(provider, { ...credentials, ...parameters }, changes)
        }
      )
    }
  }),
  dependencies: [ProviderSettings.Default, ProviderClient.Default, ProviderStore.Default, DocumentResolver.Default]
}) {}
