/**
 * The reference provider's HTTP contract: the provider contract of docs/contract/broker-api.md
 * ("Provider contract (implemented by each provider)"), which the broker calls. Contract only: no
 * service is imported here.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import {
  ProviderAnnotation,
  ProviderAnnotationId,
  ProviderFolder,
  ProviderMetadata,
  STORE_A_PARAMETERS,
  STORE_B_PARAMETERS
} from "../../schemas/provider/ProviderContract.ts"
import {
  AccessDenied,
  AnnotationNotFound,
  AnnotationsUnreadable,
  DocumentNotFound,
  InvalidRequest,
  MetadataUnreadable
} from "../../schemas/provider/ProviderErrors.ts"

type StoreParameter = (typeof STORE_A_PARAMETERS)[number] | (typeof STORE_B_PARAMETERS)[number]

/**
 * The document-identifying query parameters of both store types, each optional: which of them name
 * a document is the provider's to say (id, or nodeRef; see docs/reference-provider.md).
 */
export const DocumentParams = Schema.Struct(
  Object.fromEntries(
    [...STORE_A_PARAMETERS, ...STORE_B_PARAMETERS].map((name) => [name, Schema.optional(Schema.String)])
  ) as { readonly [K in StoreParameter]: Schema.optional<typeof Schema.String> }
)

/**
 * A 200 answer has one schema per content type in OpenAPI, but an HttpApi endpoint one encoding per
 * status: the file answer is added beside the folder answer here.
 */
const withFileAnswer = (operation: Record<string, unknown>) => {
  const responses = (operation.responses ?? {}) as Record<string, { readonly content?: Record<string, unknown> }>
  return {
    ...operation,
    responses: {
      ...responses,
      200: {
        ...responses[200],
        description: "A file's bytes, or a folder's contents",
        content: {
          "application/octet-stream": { schema: { type: "string", format: "binary" } },
          ...responses[200]?.content
        }
      }
    }
  }
}

const annotationId = HttpApiSchema.param("annotationId", Schema.String)

export class ProviderDocumentsGroup extends HttpApiGroup.make("documents")
  .add(
    HttpApiEndpoint.get("fetch", "/documents")
      .setUrlParams(DocumentParams)
      .addSuccess(ProviderFolder)
      .annotate(
        OpenApi.Description,
        "A file's bytes (its MIME type, or application/octet-stream; its name in Content-Disposition), or a folder's contents with the parameters that fetch each entry again."
      )
      .annotate(OpenApi.Transform, withFileAnswer)
  )
  .addError(InvalidRequest)
  .addError(AccessDenied)
  .addError(DocumentNotFound)
{}

export class ProviderAnnotationsGroup extends HttpApiGroup.make("annotations")
  .add(
    HttpApiEndpoint.get("list", "/annotations").setUrlParams(DocumentParams).addSuccess(
      Schema.Array(ProviderAnnotation)
    )
  )
  .add(
    HttpApiEndpoint.get("ids", "/annotations/ids").setUrlParams(DocumentParams).addSuccess(
      Schema.Array(ProviderAnnotationId)
    )
  )
  .add(
    HttpApiEndpoint.get("get")`/annotations/${annotationId}`
      .setUrlParams(DocumentParams)
      .addSuccess(ProviderAnnotation)
      .addError(AnnotationNotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/annotations")
      .setUrlParams(DocumentParams)
      .setPayload(ProviderAnnotation)
      .addSuccess(ProviderAnnotation, { status: 201 })
  )
  .add(
    HttpApiEndpoint.put("update")`/annotations/${annotationId}`
      .setUrlParams(DocumentParams)
      .setPayload(ProviderAnnotation)
      .addSuccess(ProviderAnnotation)
      .addError(AnnotationNotFound)
  )
  .add(
    HttpApiEndpoint.del("remove")`/annotations/${annotationId}`
      .setUrlParams(DocumentParams)
      .addSuccess(HttpApiSchema.Empty(200))
      .addError(AnnotationNotFound)
  )
  .addError(InvalidRequest)
  .addError(AccessDenied)
  .addError(DocumentNotFound)
  .addError(AnnotationsUnreadable)
{}

export class ProviderMetadataGroup extends HttpApiGroup.make("metadata")
  .add(
    HttpApiEndpoint.get("get", "/documents/metadata")
      .setUrlParams(DocumentParams)
      .addSuccess(ProviderMetadata)
      .annotate(OpenApi.Description, "The file's stored metadata properties ({} when none).")
  )
  .add(
    HttpApiEndpoint.post("update", "/documents/metadata")
      .setUrlParams(DocumentParams)
      .setPayload(ProviderMetadata)
      .addSuccess(ProviderMetadata)
      .annotate(
        OpenApi.Description,
        "Merges the properties into the file's stored metadata (a null removes one) and answers all of it."
      )
  )
  .addError(InvalidRequest)
  .addError(AccessDenied)
  .addError(DocumentNotFound)
  .addError(MetadataUnreadable)
{}

export class ProviderApi extends HttpApi.make("provider")
  .add(ProviderDocumentsGroup)
  .add(ProviderAnnotationsGroup)
  .add(ProviderMetadataGroup)
  .annotate(OpenApi.Title, "Reference filesystem provider")
  .annotate(OpenApi.Version, "2026.2.0")
{}
