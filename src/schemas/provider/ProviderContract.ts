/**
 * The provider contract's shapes (docs/contract/broker-api.md, "Provider contract records"): what a
 * provider answers for a folder, and its annotations. The broker reads them from every provider;
 * the reference filesystem provider writes them.
 */
import { Schema } from "effect"

/** Document-identifying parameters of the two store types the contract names. */
export const STORE_A_PARAMETERS = ["objectStoreName", "id", "vsId", "objectType", "contentElement"] as const
export const STORE_B_PARAMETERS = ["nodeRef", "alf_ticket", "user", "versionLabel"] as const

/** Parameters that say who asks, not what: forwarded to the provider, never part of a document's identity. */
export const AUTHENTICATION_PARAMETERS = ["alf_ticket", "user"] as const

/** The query parameters that fetch a document through GET /documents. */
export const ProviderParameters = Schema.Record({ key: Schema.String, value: Schema.String })
export type ProviderParameters = typeof ProviderParameters.Type

export interface ProviderFile {
  readonly type: "file"
  readonly name: string
  readonly parameters: ProviderParameters
}

export interface ProviderFolder {
  readonly type: "folder"
  readonly name: string
  readonly parameters: ProviderParameters
  readonly contents: ReadonlyArray<ProviderDocument>
}

export type ProviderDocument = ProviderFile | ProviderFolder

// Identifiers: a recursive schema is written into OpenAPI only when what it suspends has one.
export const ProviderFile: Schema.Schema<ProviderFile> = Schema.Struct({
  type: Schema.Literal("file"),
  name: Schema.String,
  parameters: ProviderParameters
}).annotations({ identifier: "ProviderFile", description: "A file: the parameters that fetch it" })

export const ProviderFolder: Schema.Schema<ProviderFolder> = Schema.Struct({
  type: Schema.Literal("folder"),
  name: Schema.String,
  parameters: ProviderParameters,
  contents: Schema.Array(Schema.suspend((): Schema.Schema<ProviderDocument> => ProviderDocument))
}).annotations({ identifier: "ProviderFolder", description: "A folder: its contents, to any depth" })

export const ProviderDocument: Schema.Schema<ProviderDocument> = Schema.Union(ProviderFile, ProviderFolder)
  .annotations({ identifier: "ProviderDocument" })

/**
 * A provider annotation: `id` (assigned by the provider on creation), `type`, `page` (0-based) and
 * `content`; every other field (position, colour, author…) is the client's and passes through.
 */
export const ProviderAnnotation = Schema.Struct(
  {
    id: Schema.optional(Schema.String),
    type: Schema.NonEmptyString,
    page: Schema.Int.pipe(Schema.nonNegative()),
    content: Schema.optional(Schema.Unknown)
  },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type ProviderAnnotation = typeof ProviderAnnotation.Type

/** One entry of GET /annotations/ids. */
export const ProviderAnnotationId = Schema.Struct({ id: Schema.String })

/** A metadata value: what a client may set on a document's property. */
export const ProviderMetadataValue = Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Null)

/**
 * A document's metadata properties, name to value: the body of POST /documents/metadata (a null
 * removes the property) and the answer of GET and POST /documents/metadata (never a null).
 */
export const ProviderMetadata = Schema.Record({ key: Schema.String, value: ProviderMetadataValue }).annotations({
  identifier: "ProviderMetadata",
  description: "Metadata property names to values (string, number, boolean; null removes the property)"
})
export type ProviderMetadata = typeof ProviderMetadata.Type
