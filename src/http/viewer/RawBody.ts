/**
 * A body read as text whatever its Content-Type: the servlets whose body is one value (a URL, a list
 * of broker URLs) are called with curl's and browsers' default form type, which a form decoder would
 * read as a parameter's name.
 */
import type { HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { InvalidRequest } from "../../schemas/broker/Document.ts"

export const bodyText = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.mapError(request.text, () => new InvalidRequest({ message: "The body could not be read" }))
