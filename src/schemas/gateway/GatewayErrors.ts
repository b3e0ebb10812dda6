/**
 * The gateway's errors. Each is a tagged error whose tag is the spec's error `code`; on the wire
 * every one is the spec's body `{code, message, status}` (no `_tag`), with its documented status.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

export class BadRequest extends Schema.TaggedError<BadRequest>()("BAD_REQUEST", { message: Schema.String }) {}
export class MissingTenant extends Schema.TaggedError<MissingTenant>()("MISSING_TENANT", { message: Schema.String }) {}
export class MissingUser extends Schema.TaggedError<MissingUser>()("MISSING_USER", { message: Schema.String }) {}
export class LlmBadRequest extends Schema.TaggedError<LlmBadRequest>()("LLM_BAD_REQUEST", { message: Schema.String }) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("UNAUTHORIZED", { message: Schema.String }) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("FORBIDDEN", { message: Schema.String }) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NOT_FOUND", { message: Schema.String }) {}
export class FileNotFound extends Schema.TaggedError<FileNotFound>()("FILE_NOT_FOUND", { message: Schema.String }) {}
export class LlmProviderNotFound
  extends Schema.TaggedError<LlmProviderNotFound>()("LLM_PROVIDER_NOT_FOUND", { message: Schema.String })
{}
export class Conflict extends Schema.TaggedError<Conflict>()("CONFLICT", { message: Schema.String }) {}
export class LlmCapabilityError
  extends Schema.TaggedError<LlmCapabilityError>()("LLM_CAPABILITY_ERROR", { message: Schema.String })
{}
export class ScanConfigurationError
  extends Schema.TaggedError<ScanConfigurationError>()("SCAN_CONFIGURATION_ERROR", { message: Schema.String })
{}
export class McpServerNotFound
  extends Schema.TaggedError<McpServerNotFound>()("MCP_SERVER_NOT_FOUND", { message: Schema.String })
{}
/** The tool loop reached its bound with the model still calling tools (the request keeps its trace). */
export class ToolCyclesExceeded
  extends Schema.TaggedError<ToolCyclesExceeded>()("TOOL_CYCLES_EXCEEDED", { message: Schema.String })
{}
export class InternalError extends Schema.TaggedError<InternalError>()("INTERNAL_ERROR", { message: Schema.String }) {}

/** The spec's error body. */
export const ErrorBody = Schema.Struct({ code: Schema.String, message: Schema.String, status: Schema.Number })
export type ErrorBody = typeof ErrorBody.Type

type ErrorClass<A extends { readonly _tag: string; readonly message: string }> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any encoded side: each class encodes its own way
  & Schema.Schema<A, any, never>
  & (new(props: { readonly message: string }) => A)

/** An error as the HttpApi declares it: the class on the inside, `{code, message, status}` on the wire. */
const onTheWire = <A extends { readonly _tag: string; readonly message: string }>(
  error: ErrorClass<A>,
  status: number
) =>
  Schema.transform(ErrorBody, Schema.typeSchema(error), {
    strict: false,
    decode: (body) => new error({ message: body.message }),
    encode: (value) => ({ code: value._tag, message: value.message, status })
  }).annotations(HttpApiSchema.annotations({ status }))

/** Every error with its documented status, for the API definition. */
export const GatewayErrors = {
  BadRequest: onTheWire(BadRequest, 400),
  MissingTenant: onTheWire(MissingTenant, 400),
  MissingUser: onTheWire(MissingUser, 400),
  LlmBadRequest: onTheWire(LlmBadRequest, 400),
  Unauthorized: onTheWire(Unauthorized, 401),
  Forbidden: onTheWire(Forbidden, 403),
  NotFound: onTheWire(NotFound, 404),
  FileNotFound: onTheWire(FileNotFound, 404),
  LlmProviderNotFound: onTheWire(LlmProviderNotFound, 404),
  Conflict: onTheWire(Conflict, 409),
  McpServerNotFound: onTheWire(McpServerNotFound, 404),
  LlmCapabilityError: onTheWire(LlmCapabilityError, 422),
  ToolCyclesExceeded: onTheWire(ToolCyclesExceeded, 422),
  ScanConfigurationError: onTheWire(ScanConfigurationError, 422),
  InternalError: onTheWire(InternalError, 500)
} as const
