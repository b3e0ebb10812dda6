/**
 * VIEWER_TOKEN_VALIDATOR=http: the token is sent to VIEWER_TOKEN_VALIDATION_URL as a form
 * (`token=<t>`); a 2xx answer accepts it, 401 or 403 refuses it. Anything else (no answer within
 * VIEWER_TOKEN_VALIDATION_TIMEOUT, another status) leaves the question open: a 500 that says so, never
 * a refusal the user could not explain. A JSON answer's string `user` names the session's user.
 */
import type { HttpClient, HttpClientError } from "@effect/platform"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Option, Schema } from "effect"
import { TokenRejected, TokenValidationFailed } from "../../../schemas/viewer/ViewerErrors.ts"
import type { TokenValidator } from "./TokenValidator.ts"

const Answer = Schema.parseJson(Schema.Struct({ user: Schema.optional(Schema.Unknown) }))

/** The `user` of a JSON answer, when it names one. */
const userOf = (contentType: string | undefined, body: string) => {
  if (!(contentType ?? "").toLowerCase().includes("json")) return null
  const answer = Schema.decodeUnknownOption(Answer)(body)
  const user = Option.isSome(answer) ? answer.value.user : undefined
  return typeof user === "string" && user !== "" ? user : null
}

export const httpValidator = (client: HttpClient.HttpClient, url: URL, timeout: Duration.Duration): TokenValidator => {
  const failed = (why: string) =>
    new TokenValidationFailed({ message: `The token validation service at ${url.origin}${url.pathname} ${why}` })
  return (token) =>
    client.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUrlParams({ token }))).pipe(
      Effect.flatMap((response): Effect.Effect<
        { readonly user: string | null },
        TokenRejected | TokenValidationFailed | HttpClientError.ResponseError
      > =>
        response.status === 401 || response.status === 403
          ? Effect.fail(
            new TokenRejected({ message: `The token validation service refused the token (${response.status})` })
          )
          : response.status < 200 || response.status >= 300
          ? Effect.fail(failed(`answered ${response.status}, neither 2xx (valid) nor 401/403 (refused)`))
          : Effect.map(response.text, (body) => ({ user: userOf(response.headers["content-type"], body) }))
      ),
      Effect.scoped,
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => failed(`did not answer within ${Duration.format(timeout)} (VIEWER_TOKEN_VALIDATION_TIMEOUT)`)
      }),
      Effect.catchTags({
        RequestError: (error: HttpClientError.RequestError) =>
          Effect.fail(failed(`could not be reached: ${error.message}`)),
        ResponseError: (error: HttpClientError.ResponseError) =>
          Effect.fail(failed(`answered unreadably: ${error.message}`))
      })
    )
}
