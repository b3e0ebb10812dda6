/**
 * POST /registry/documents: a document a provider holds, opened by its parameters
 * (docs/providers.md). The same identifying parameters always give the same document ID; the
 * content is fetched once and used for PROVIDER_CACHE_TTL, but the provider is asked on every
 * opening, so a user it refuses is refused even while another user's copy is cached.
 * POST /registry/folders: a container built from a client's tree, registered the same way as a
 * provider's folder answer.
 */
import { Config, Duration, Effect, Option, Stream } from "effect"
import { createHash } from "node:crypto"
import { DocumentIdRef, InvalidRequest, UploadTooLarge } from "../../../schemas/broker/Document.ts"
import { ProviderUnavailable } from "../../../schemas/broker/Providers.ts"
import type { ProviderFolder, ProviderParameters } from "../../../schemas/provider/ProviderContract.ts"
import { capBody, uploadDrainBytes } from "../../common/BodyLimit.ts"
import { makeKeyedLocks } from "../../common/KeyedLocks.ts"
import { folderMaxEntries, folderParts } from "../composite/ProviderFolders.ts"
import { formatOfRecord } from "../conversion/FormatDetector.ts"
import { DocumentRegistration, newDocumentId } from "../documents/DocumentRegistration.ts"
import { DocumentRegistry } from "../registry/DocumentRegistry.ts"
import { ProviderClient } from "./ProviderClient.ts"
import { type Provider, ProviderSettings } from "./ProviderSettings.ts"
import { ProviderStore } from "./ProviderStore.ts"

/** What a folder answer is registered as: composite, stored as the provider sent it. */
const FOLDER = formatOfRecord("folder", "inode/directory")!

/**
 * The document ID of a provider's document: `b64_` and 32 characters of a SHA-256 over the
 * provider's name and the identifying parameters in name order. Deterministic, one path segment,
 * and no ECM identifier shown in URLs or logs.
 */
export const providerDocumentId = (provider: string, identifying: ProviderParameters) =>
  `b64_${
    createHash("sha256")
      .update(JSON.stringify([provider, Object.entries(identifying).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]))
      .digest("base64url")
      .slice(0, 32)
  }`

/** A form-encoded body as parameters; a parameter given twice is refused (which one would be meant?). */
const parseForm = (body: string) =>
  Effect.gen(function*() {
    const parameters: Record<string, string> = {}
    for (const [name, value] of new URLSearchParams(body)) {
      if (name in parameters) return yield* new InvalidRequest({ message: `The parameter ${name} is given twice` })
      parameters[name] = value
    }
    return parameters
  })

const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+$/

export class RegistryDocuments extends Effect.Service<RegistryDocuments>()("docstack/RegistryDocuments", {
  effect: Effect.gen(function*() {
    const { providers, defaultName } = yield* ProviderSettings
    const client = yield* ProviderClient
    const store = yield* ProviderStore
    const registration = yield* DocumentRegistration
    const registry = yield* DocumentRegistry
    const maxEntries = yield* folderMaxEntries
    const parametersMaxBytes = yield* Config.integer("REGISTRY_PARAMETERS_MAX_BYTES").pipe(Config.withDefault(65_536))
    const drainBytes = yield* uploadDrainBytes
    const locks = makeKeyedLocks()

    /** The form-encoded body, at most REGISTRY_PARAMETERS_MAX_BYTES (it is parameters, not a document). */
    const readParameters = (body: Stream.Stream<Uint8Array, InvalidRequest>) =>
      capBody(body, parametersMaxBytes, drainBytes, () =>
        new InvalidRequest({
          message: `The parameters are longer than ${parametersMaxBytes} bytes (REGISTRY_PARAMETERS_MAX_BYTES)`
        })).pipe(
          Stream.decodeText(),
          Stream.mkString
        )

    /** The provider a request names (X-Provider-ID), else the default one. */
    const providerFor = (name: string | undefined) => {
      const chosen = name ?? defaultName
      const provider = chosen === undefined ? undefined : providers.get(chosen)
      if (provider) return Effect.succeed(provider)
      const known = [...providers.keys()].join(", ") || "none"
      return Effect.fail(
        new InvalidRequest({
          message: chosen === undefined
            ? `X-Provider-ID is missing and no default provider is configured (REGISTRY_DEFAULT_PROVIDER); providers: ${known}`
            : `No provider is named '${chosen}' (X-Provider-ID); providers: ${known}`
        })
      )
    }

    /** Another broker process registered the same document between this one's look and its insert. */
    const registeredMeanwhile = () => Effect.succeed(false)

    const tooLarge = (provider: Provider) => (error: UploadTooLarge) =>
      new ProviderUnavailable({
        provider: provider.name,
        message: `Provider ${provider.name} sent a file larger than ${error.limitBytes} bytes (MAX_UPLOAD_BYTES)`
      })

    /**
     * A folder tree (a provider's answer, or one a client built) registered as the container
     * `documentId`: checked now (PROVIDER_FOLDER_MAX_ENTRIES), stored as received, its files links
     * fetched on first use (ProviderParts.ts). Answers whether it replaced what was registered;
     * `exclusive` refuses an ID already taken (409) instead of replacing.
     */
    const registerFolder = (documentId: string, folder: ProviderFolder, exclusive: boolean) =>
      Effect.gen(function*() {
        yield* folderParts(folder, maxEntries)
        const bytes = new TextEncoder().encode(JSON.stringify(folder))
        const stored = yield* registration.storeFetched(Stream.succeed(bytes))
        return yield* registration.registerFetched(documentId, stored, {
          title: folder.name === "" ? null : folder.name,
          declared: FOLDER,
          exclusive
        })
      })

    /** Who asks, as the provider names it: only its authentication parameters. */
    const credentialsOf = (provider: Provider, given: ProviderParameters) =>
      Object.fromEntries(Object.entries(given).filter(([name]) => provider.authenticationParameters.has(name)))

    /** Fetches the document (or, when the cached copy is fresh, only asks) and registers it under `documentId`. */
    const fetchInto = (
      documentId: string,
      provider: Provider,
      forwarded: ProviderParameters,
      identifying: ProviderParameters,
      credentials: ProviderParameters
    ) =>
      Effect.gen(function*() {
        const known = yield* store.find(documentId)
        const registered = yield* registry.find(documentId)
        const fresh = Option.isSome(known) && Option.isSome(registered) &&
          Date.now() - known.value.fetchedAt < Duration.toMillis(provider.cacheTtl)
        const cachedFolder = Option.isSome(registered) && registered.value.format === FOLDER.format
        const answer = yield* client.document(provider, forwarded)
        if (answer.kind === "file") {
          if (fresh && !cachedFolder) {
            yield* answer.discard
            return yield* store.touch(documentId, credentials, false)
          }
          const stored = yield* registration.storeFetched(answer.body).pipe(
            Effect.catchIf((e): e is UploadTooLarge => e instanceof UploadTooLarge, (e) =>
              Effect.fail(tooLarge(provider)(e)))
          )
          yield* registration.registerFetched(documentId, stored, { title: answer.title ?? null }).pipe(
            Effect.catchTag("DocumentAlreadyExists", registeredMeanwhile)
          )
          return yield* store.save(documentId, provider.name, identifying, credentials)
        }
        const replaced = yield* registerFolder(documentId, answer.folder, false).pipe(
          Effect.catchTags({
            FolderRejected: (e) =>
              Effect.fail(
                new ProviderUnavailable({ provider: provider.name, message: `Provider ${provider.name}: ${e.message}` })
              ),
            UploadTooLarge: (e) =>
              Effect.fail(tooLarge(provider)(e)),
            DocumentAlreadyExists: registeredMeanwhile
          })
        )
        if (replaced || !fresh) {
          // The same tree fetched again after its time: its files are fetched again too, on next use.
          if (!replaced) {
            yield* registration.forgetParts(documentId)
          }
          return yield* store.save(documentId, provider.name, identifying, credentials)
        }
        return yield* store.touch(documentId, credentials, false)
      })

    return {
      open: Effect.fn("RegistryDocuments.open")(
        function*(
          providerName: string | undefined,
          contentType: string | undefined,
          body: Stream.Stream<Uint8Array, InvalidRequest>
        ) {
          const provider = yield* providerFor(providerName)
          const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
          if (!MEDIA_TYPE.test(mediaType)) {
            return yield* new InvalidRequest({
              message: contentType === undefined
                ? "Content-Type is required: application/octet-stream or the document's type, or application/json for a folder"
                : `Content-Type '${contentType}' is not a media type`
            })
          }
          const given = yield* parseForm(yield* readParameters(body))
          const forwarded = Object.fromEntries(Object.entries(given).filter(([name]) => provider.parameters.has(name)))
          const identifying = Object.fromEntries(
            Object.entries(forwarded).filter(([name]) => !provider.authenticationParameters.has(name))
          )
          if (Object.keys(identifying).length === 0) {
            const names = [...provider.parameters].filter((name) => !provider.authenticationParameters.has(name))
            return yield* new InvalidRequest({
              message:
                `No parameter names a document of provider ${provider.name}: the form-encoded body needs one of ${
                  names.join(", ")
                } (for example id=folder/file.pdf)`
            })
          }
          const credentials = credentialsOf(provider, forwarded)
          const documentId = providerDocumentId(provider.name, identifying)
          yield* locks.withLock(documentId)(fetchInto(documentId, provider, forwarded, identifying, credentials))
          return new DocumentIdRef({ id: documentId })
        }
      ),

      /**
       * POST /registry/folders: a container built from a tree the client gives, registered as a
       * provider's folder answer is, under `assignedId` (409 if taken) or a new ID. Its files are
       * fetched on first use from the provider (with `asked`'s credentials) or, for a `documentUrl`
       * link, from the URL.
       */
      openTree: Effect.fn("RegistryDocuments.openTree")(
        function*(
          providerName: string | undefined,
          folder: ProviderFolder,
          assignedId: string | undefined,
          asked: ProviderParameters
        ) {
          const provider = yield* providerFor(providerName)
          const documentId = assignedId ?? newDocumentId()
          yield* registerFolder(documentId, folder, true).pipe(
            Effect.catchTag("FolderRejected", (e) => Effect.fail(new InvalidRequest({ message: e.message })))
          )
          // The tree itself names nothing at the provider: no identifying parameters of its own.
          yield* store.save(documentId, provider.name, {}, credentialsOf(provider, asked))
          return new DocumentIdRef({ id: documentId })
        }
      )
    }
  }),
  dependencies: [
    ProviderSettings.Default,
    ProviderClient.Default,
    ProviderStore.Default,
    DocumentRegistration.Default,
    DocumentRegistry.Default
  ]
}) {}
