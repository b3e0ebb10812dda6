/**
 * The broker's calls to document providers, over the provider contract (docs/contract/broker-api.md,
 * "Provider contract"): a document (a file's bytes, streamed, or a folder's tree) and the
 * annotation endpoints. Every answer is checked against the contract; what it does not allow (a
 * status it does not name, a body of the wrong shape, a JSON answer past PROVIDER_JSON_MAX_BYTES)
 * is the provider's failure (502), never a half-read document.
 */
import type { HttpClientError, HttpClientResponse } from "@effect/platform"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { parse as parseContentDisposition } from "content-disposition"
import { Chunk, Config, Duration, Effect, Schema, Stream } from "effect"
import { InvalidRequest } from "../../../schemas/broker/Document.ts"
import {
  ProviderAccessDenied,
  ProviderDocumentNotFound,
  ProviderUnavailable
} from "../../../schemas/broker/Providers.ts"
import {
  ProviderAnnotation,
  ProviderAnnotationId,
  ProviderDocument,
  type ProviderFolder,
  ProviderMetadata,
  type ProviderParameters
} from "../../../schemas/provider/ProviderContract.ts"
import * as NodeHttpClient from "../../common/NodeHttpClient.ts"
import { readableParseError } from "../../common/ReadableIssues.ts"
import type { Provider } from "./ProviderSettings.ts"

export type ProviderError = ProviderAccessDenied | ProviderDocumentNotFound | ProviderUnavailable

/** A provider's document: a file to stream, or a folder's tree. */
export type ProviderAnswer =
  | {
    readonly kind: "file"
    /** The title its Content-Disposition gives (`filename*` preferred), if any. */
    readonly title: string | undefined
    /** Its bytes, within the call's timeout; the connection closes if they are not read to the end. */
    readonly body: Stream.Stream<Uint8Array, ProviderUnavailable>
    /** Closes the connection without reading the bytes (the broker has them already). */
    readonly discard: Effect.Effect<void>
  }
  | { readonly kind: "folder"; readonly folder: ProviderFolder }

const ProviderAnnotations = Schema.Array(ProviderAnnotation)

const METADATA_PATH = "documents/metadata"
const ProviderAnnotationIds = Schema.Array(ProviderAnnotationId)

/** What a provider says when it refuses: its JSON `message`, else the start of its text. */
const reasonOf = (text: string) => {
  try {
    const parsed = JSON.parse(text) as { message?: unknown }
    if (typeof parsed?.message === "string") return parsed.message
  } catch {
    // not JSON: the text itself
  }
  const trimmed = text.trim()
  return trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed
}

const isJson = (response: HttpClientResponse.HttpClientResponse) =>
  /^application\/(?:[\w.+-]+\+)?json\b/i.test(response.headers["content-type"] ?? "")

export class ProviderClient extends Effect.Service<ProviderClient>()("docstack/ProviderClient", {
  scoped: Effect.gen(function*() {
    const jsonMaxBytes = yield* Config.integer("PROVIDER_JSON_MAX_BYTES").pipe(Config.withDefault(16 * 1024 * 1024))
    const client = NodeHttpClient.make(yield* NodeHttpClient.makeAgents)

    const unavailable = (provider: Provider, message: string) =>
      new ProviderUnavailable({ provider: provider.name, message: `Provider ${provider.name} ${message}` })

    /** The whole JSON body, at most PROVIDER_JSON_MAX_BYTES, decoded with `schema`. */
    const readJson = <A, I>(
      provider: Provider,
      response: HttpClientResponse.HttpClientResponse,
      schema: Schema.Schema<A, I>,
      what: string
    ) =>
      response.stream.pipe(
        Stream.mapError((e) => unavailable(provider, `broke off its answer: ${e.message}`)),
        Stream.runFoldEffect({ size: 0, chunks: Chunk.empty<Uint8Array>() }, (read, chunk) =>
          read.size + chunk.length > jsonMaxBytes
            ? Effect.fail(
              unavailable(provider, `answered ${what} of more than ${jsonMaxBytes} bytes (PROVIDER_JSON_MAX_BYTES)`)
            )
            : Effect.succeed({ size: read.size + chunk.length, chunks: Chunk.append(read.chunks, chunk) })),
        Effect.flatMap(({ chunks }) =>
          Schema.decodeUnknown(Schema.parseJson(schema))(Buffer.concat(Chunk.toArray(chunks)).toString("utf8")).pipe(
            Effect.mapError((error) =>
              unavailable(
                provider,
                `answered ${what} that does not follow the provider contract: ${readableParseError(error)}`
              )
            )
          )
        )
      )

    /**
     * One call: its answer once status and headers are in (within the provider's connectTimeout),
     * with a refusal (403, 404, 400) turned into the broker's error and anything else not 2xx the
     * provider's failure.
     */
    const call = (
      provider: Provider,
      method: "GET" | "POST" | "PUT" | "DELETE",
      path: string,
      parameters: ProviderParameters,
      body?: unknown
    ) =>
      Effect.gen(function*() {
        const url = new URL(path, provider.url)
        const request = HttpClientRequest.make(method)(url).pipe(
          HttpClientRequest.setUrlParams(parameters),
          HttpClientRequest.setHeaders({ ...provider.headers, "user-agent": "docstack-broker" }),
          body === undefined ? (r) => r : HttpClientRequest.bodyUnsafeJson(body)
        )
        const response = yield* client.execute(request).pipe(
          Effect.mapError((error: HttpClientError.HttpClientError) =>
            unavailable(provider, `could not be reached at ${url.origin}: ${String(error.cause ?? error.message)}`)
          ),
          Effect.timeoutFail({
            duration: provider.connectTimeout,
            onTimeout: () =>
              unavailable(
                provider,
                `did not answer within ${Duration.format(provider.connectTimeout)} (its connectTimeout)`
              )
          })
        )
        if (response.status >= 200 && response.status < 300) return response
        const reason = yield* response.text.pipe(
          Effect.timeout(Duration.seconds(5)),
          Effect.map(reasonOf),
          Effect.orElseSucceed(() => "")
        )
        const said = reason === "" ? "" : `: ${reason}`
        switch (response.status) {
          case 403:
            return yield* new ProviderAccessDenied({
              provider: provider.name,
              message: `Provider ${provider.name} denied access${said}`
            })
          case 404:
            return yield* new ProviderDocumentNotFound({
              provider: provider.name,
              message: `Provider ${provider.name} has no such ${
                path.startsWith("annotations/") && path !== "annotations/ids" ? "annotation or document" : "document"
              }${said}`
            })
          case 400:
            if (method === "POST" || method === "PUT") {
              const what = path === METADATA_PATH ? "metadata" : "annotation"
              return yield* new InvalidRequest({ message: `Provider ${provider.name} refused the ${what}${said}` })
            }
        }
        return yield* unavailable(provider, `answered ${response.status} to ${method} /${path}${said}`)
      })

    /** A JSON call as a whole, within the provider's timeout. */
    const jsonCall = <A, I>(
      provider: Provider,
      method: "GET" | "POST" | "PUT",
      path: string,
      parameters: ProviderParameters,
      schema: Schema.Schema<A, I>,
      what: string,
      body?: unknown
    ) =>
      call(provider, method, path, parameters, body).pipe(
        Effect.flatMap((response) => readJson(provider, response, schema, what)),
        Effect.timeoutFail({
          duration: provider.timeout,
          onTimeout: () =>
            unavailable(provider, `did not finish its answer within ${Duration.format(provider.timeout)}`)
        })
      )

    const annotationPath = (annotationId: string) => `annotations/${encodeURIComponent(annotationId)}`

    return {
      /**
       * GET /documents. A file's body must then be read (or discarded) within the provider's
       * timeout, counted from the call's start.
       */
      document: Effect.fn("ProviderClient.document")(function*(provider: Provider, parameters: ProviderParameters) {
        const started = Date.now()
        const response = yield* call(provider, "GET", "documents", parameters)
        if (isJson(response)) {
          const document = yield* readJson(provider, response, ProviderDocument, "a folder").pipe(
            Effect.timeoutFail({
              duration: provider.timeout,
              onTimeout: () =>
                unavailable(provider, `did not finish its answer within ${Duration.format(provider.timeout)}`)
            })
          )
          if (document.type !== "folder") {
            return yield* unavailable(provider, "answered a JSON file entry where a folder or a file's bytes belong")
          }
          return { kind: "folder", folder: document } satisfies ProviderAnswer
        }
        const disposition = response.headers["content-disposition"]
        let title: string | undefined
        try {
          title = disposition
            ? parseContentDisposition(disposition).parameters.filename?.trim() || undefined
            : undefined
        } catch {
          title = undefined
        }
        const remaining = Duration.millis(Math.max(0, Duration.toMillis(provider.timeout) - (Date.now() - started)))
        const body = response.stream.pipe(
          Stream.mapError((e) => unavailable(provider, `broke off the document's bytes: ${e.message}`)),
          Stream.interruptWhen(
            Effect.sleep(remaining).pipe(
              Effect.zipRight(
                Effect.fail(
                  unavailable(provider, `did not deliver the document within ${Duration.format(provider.timeout)}`)
                )
              )
            )
          )
        )
        return { kind: "file", title, body, discard: NodeHttpClient.discard(response) } satisfies ProviderAnswer
      }),

      annotations: (provider: Provider, parameters: ProviderParameters) =>
        jsonCall(provider, "GET", "annotations", parameters, ProviderAnnotations, "an annotation list"),

      annotationIds: (provider: Provider, parameters: ProviderParameters) =>
        jsonCall(provider, "GET", "annotations/ids", parameters, ProviderAnnotationIds, "an annotation ID list"),

      annotation: (provider: Provider, parameters: ProviderParameters, annotationId: string) =>
        jsonCall(provider, "GET", annotationPath(annotationId), parameters, ProviderAnnotation, "an annotation"),

      createAnnotation: (provider: Provider, parameters: ProviderParameters, annotation: ProviderAnnotation) =>
        jsonCall(provider, "POST", "annotations", parameters, ProviderAnnotation, "an annotation", annotation),

      updateAnnotation: (
        provider: Provider,
        parameters: ProviderParameters,
        annotationId: string,
        annotation: ProviderAnnotation
      ) =>
        jsonCall(
          provider,
          "PUT",
          annotationPath(annotationId),
          parameters,
          ProviderAnnotation,
          "an annotation",
          annotation
        ),

      /** POST /documents/metadata: the changes merged by the provider; answers all it stores. */
      updateMetadata: (provider: Provider, parameters: ProviderParameters, changes: ProviderMetadata) =>
        jsonCall(provider, "POST", METADATA_PATH, parameters, ProviderMetadata, "metadata", changes),

      removeAnnotation: (provider: Provider, parameters: ProviderParameters, annotationId: string) =>
        call(provider, "DELETE", annotationPath(annotationId), parameters).pipe(
          // Read to its (empty) end, so that the connection serves the next call.
          Effect.flatMap((response) => Effect.orElseSucceed(response.text, () => "")),
          Effect.asVoid,
          Effect.timeoutFail({
            duration: provider.timeout,
            onTimeout: () => unavailable(provider, `did not answer within ${Duration.format(provider.timeout)}`)
          })
        )
    }
  })
}) {}
