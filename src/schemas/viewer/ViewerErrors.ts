/**
 * The viewer's own errors. Errors a broker answers (InvalidRequest, DocumentNotFound,
 * DocumentProcessingFailed…) reach the browser unchanged, in the same `{_tag, message}` shape
 * (docs/viewer.md, "Errors").
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/** No rendition target (broker) answered: every one configured is down or unreachable. */
export class RenditionUnavailable extends Schema.TaggedError<RenditionUnavailable>()(
  "RenditionUnavailable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

/** The token was refused by the configured validator (validateToken). */
export class TokenRejected extends Schema.TaggedError<TokenRejected>()(
  "TokenRejected",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

/** validateToken: the configured validator could not give an answer (its service unreachable, or an answer it should not give). */
export class TokenValidationFailed extends Schema.TaggedError<TokenValidationFailed>()(
  "TokenValidationFailed",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

/** No composite container with that ID (compositeAccessorServlet PUT). */
export class ContainerNotFound extends Schema.TaggedError<ContainerNotFound>()(
  "ContainerNotFound",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

/** The document has no such page (the broker's 400 for a page out of range; 404 in the viewer's contract). */
export class PageNotFound extends Schema.TaggedError<PageNotFound>()(
  "PageNotFound",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

/**
 * The document's annotation policy (the broker's GET /annotation/policy) says
 * `canCreateAnnotations: false`: its annotations cannot be created, changed or deleted here.
 */
export class AnnotationsReadOnly extends Schema.TaggedError<AnnotationsReadOnly>()(
  "AnnotationsReadOnly",
  { documentId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}
