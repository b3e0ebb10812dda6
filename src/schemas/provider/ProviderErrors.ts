/**
 * The errors of the provider contract (docs/contract/broker-api.md, "Provider contract"), each with
 * the status the contract gives it. Bodies are `{_tag, message}`, as the broker writes its own.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/** 400: a request that names no document, or names it twice, or a body the contract refuses. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()(
  "InvalidRequest",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 400 })
) {}

/** 403: the user (or the user a ticket stands for) may not view the document. */
export class AccessDenied extends Schema.TaggedError<AccessDenied>()(
  "AccessDenied",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

/**
 * 404: nothing answers to these parameters. Also the answer for what lies outside the root or is
 * hidden, so that a caller cannot tell those apart from what does not exist.
 */
export class DocumentNotFound extends Schema.TaggedError<DocumentNotFound>()(
  "DocumentNotFound",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

/** 404: the document exists but has no annotation with this ID. */
export class AnnotationNotFound extends Schema.TaggedError<AnnotationNotFound>()(
  "AnnotationNotFound",
  { annotationId: Schema.String, message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

/**
 * 500: a document's annotation file is not what the provider writes (edited by hand, say). It is
 * refused rather than read around, so that no annotation is dropped by the next write.
 */
export class AnnotationsUnreadable extends Schema.TaggedError<AnnotationsUnreadable>()(
  "AnnotationsUnreadable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

/** 500: a document's metadata file is not what the provider writes; refused rather than overwritten. */
export class MetadataUnreadable extends Schema.TaggedError<MetadataUnreadable>()(
  "MetadataUnreadable",
  { message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}
