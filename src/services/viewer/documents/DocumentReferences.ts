/**
 * Documents named by reference (docs/viewer.md "Opening documents by reference"): a provider's
 * parameters (a connector-level ID, or `loadingQuery?<parameters>`), an http(s) URL the broker
 * fetches, or a document the viewer already gave out. Parsed here, before any broker is called, so
 * that a malformed one is a 400; opened on the broker client the caller chose.
 */
import { Effect } from "effect"
import { DocumentAccessor, InvalidRequest } from "../../../schemas/broker/Document.ts"
import type { BrokerClient } from "../targets/BrokerClients.ts"

/** The parameters naming a document of a provider (`id`, `objectStoreName`, …). */
export type ProviderParameters = Readonly<Record<string, string>>

/** A document outside the viewer, which a broker opens. */
export type ExternalReference =
  /** Opened through the broker's default provider (POST /registry/documents). */
  | { readonly _tag: "Provider"; readonly parameters: ProviderParameters }
  /** Fetched by the broker (POST /accessor/load). */
  | { readonly _tag: "Url"; readonly url: string }

export type DocumentReference =
  | ExternalReference
  /** A document this viewer already named. */
  | { readonly _tag: "ViewerDocument"; readonly viewerId: string }

const LOADING_QUERY = "loadingQuery?"

const invalid = (message: string) => new InvalidRequest({ message })

/** A query string's parameters; the first value of a name repeated wins, as a provider reads it. */
const parametersOf = (query: string): Record<string, string> => {
  const parameters: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(query)) {
    if (name !== "" && !(name in parameters)) parameters[name] = value
  }
  return parameters
}

const providerReference = (query: string, original: string) => {
  const parameters = parametersOf(query)
  return Object.keys(parameters).length === 0
    ? Effect.fail(invalid(`'${original}' names no document: give provider parameters such as id=folder/file.pdf`))
    : Effect.succeed({ _tag: "Provider", parameters } as const)
}

/**
 * uploadServlet's connector-level ID: provider parameters as a query string when it holds '='
 * (`id=case-42/a.pdf&objectStoreName=X`), else the value of `id` itself (`tracemonkey.pdf`).
 */
export const connectorId = (uuid: string): Effect.Effect<ProviderParameters, InvalidRequest> =>
  uuid.includes("=")
    ? Effect.map(providerReference(uuid, uuid), (reference) => reference.parameters)
    : Effect.succeed({ id: uuid })

const isHttpUrl = (value: string) => {
  if (!/^https?:\/\//i.test(value)) return false
  try {
    new URL(value)
    return true
  } catch {
    return false
  }
}

/** openExternalDocument's `url`: an http(s) URL, or `loadingQuery?<provider parameters>`. */
export const externalReference = (url: string): Effect.Effect<ExternalReference, InvalidRequest> =>
  url.startsWith(LOADING_QUERY)
    ? providerReference(url.slice(LOADING_QUERY.length), url)
    : isHttpUrl(url)
    ? Effect.succeed({ _tag: "Url", url })
    : Effect.fail(invalid(`url must be an http(s) URL or loadingQuery?<provider parameters>, got '${url}'`))

/**
 * One `url` of mergeDocumentsServlet: what openExternalDocument takes, or a document of this viewer
 * as its address has it (`?uuid=<id>`) or bare (`b64_…`).
 */
export const mergeReference = (url: string): Effect.Effect<DocumentReference, InvalidRequest> => {
  if (url.startsWith("?")) {
    const viewerId = new URLSearchParams(url).get("uuid")
    return viewerId === null || viewerId === ""
      ? Effect.fail(invalid(`'${url}' names no document: write ?uuid=<document ID>`))
      : Effect.succeed({ _tag: "ViewerDocument", viewerId })
  }
  if (url.startsWith("b64_")) return Effect.succeed({ _tag: "ViewerDocument", viewerId: url })
  return externalReference(url).pipe(
    Effect.mapError(() =>
      invalid(
        `url must be an http(s) URL, loadingQuery?<provider parameters>, ?uuid=<document ID> or a document ID (b64_…), got '${url}'`
      )
    )
  )
}

/** Opens a provider's document on `client` (POST /registry/documents): the broker's document ID. */
export const openProviderDocument = (client: BrokerClient, parameters: ProviderParameters) =>
  client.providers.open({ headers: {}, payload: parameters }).pipe(
    Effect.map((ref) => ref.id),
    // Declared for the providers' group as a whole; opening a document never meets it.
    Effect.catchTag("AnnotationNotFound", (error) => Effect.die(error))
  )

/** Opens an http(s) URL's document on `client` (POST /accessor/load): the broker's document ID. */
const openUrl = (client: BrokerClient, url: string) =>
  Effect.map(client.documentLoading.load({ payload: new DocumentAccessor({ url }) }), (ref) => ref.id)

/** Opens a provider's or a URL's document on `client`: the broker's new document ID. */
export const openOn = (
  client: BrokerClient,
  reference: ExternalReference
): Effect.Effect<
  string,
  Effect.Effect.Error<ReturnType<typeof openProviderDocument>> | Effect.Effect.Error<ReturnType<typeof openUrl>>
> => reference._tag === "Provider" ? openProviderDocument(client, reference.parameters) : openUrl(client, reference.url)
