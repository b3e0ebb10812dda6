/**
 * Provider-backed documents: the errors a provider's answer turns into (docs/providers.md).
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/** The provider refused the user (its 403). */
export class ProviderAccessDenied extends Schema.TaggedError<ProviderAccessDenied>()(
  "ProviderAccessDenied",
  { provider: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

/** The provider has no such document or annotation (its 404). */
export class ProviderDocumentNotFound extends Schema.TaggedError<ProviderDocumentNotFound>()(
  "ProviderDocumentNotFound",
  { provider: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

/**
 * The provider could not be reached, did not answer in time, or answered what the contract does not
 * allow (another status, a body of the wrong shape, a file past the size limit).
 */
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()(
  "ProviderUnavailable",
  { provider: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 502 })
) {}

/**
 * The document was not opened through a provider (an upload, a URL), or is not one of a provider's
 * files (an attachment inside one, a folder built from a tree, a file fetched from a URL): there is
 * no provider to send its metadata to.
 */
export class DocumentHasNoProvider extends Schema.TaggedError<DocumentHasNoProvider>()(
  "DocumentHasNoProvider",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}
