import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { InvalidRequest } from "../../schemas/broker/Document.ts"
import { Sessions } from "../../services/viewer/sessions/Sessions.ts"
import { TokenValidation } from "../../services/viewer/tokens/TokenValidator.ts"
import type { ViewerApi } from "./Api.ts"
import { answerWithCookie, ensureSession, SESSION_COOKIE } from "./SessionCookie.ts"

/** The contract's "missing or null": absent, empty, or the text `null` (what a page sends for an unset variable). */
const given = (token: string | undefined): token is string =>
  token !== undefined && token.trim() !== "" && token.trim() !== "null"

const unreadable = (error: { readonly message: string }) =>
  new InvalidRequest({ message: `The form could not be read: ${error.message}` })

/**
 * validateToken's token: the form field `token` (URL-encoded or multipart body), else the cookie
 * `token`.
 */
const requestToken = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const type = (request.headers["content-type"] ?? "").toLowerCase()
  let field: string | undefined
  if (type.startsWith("application/x-www-form-urlencoded")) {
    field = new URLSearchParams(yield* Effect.mapError(request.text, unreadable)).get("token") ?? undefined
  } else if (type.startsWith("multipart/form-data")) {
    const value = (yield* Effect.mapError(request.multipart, unreadable)).token
    field = typeof value === "string" ? value : undefined
  }
  const token = [field, request.cookies.token].find(given)
  if (token === undefined) {
    return yield* new InvalidRequest({
      message: "No token: send it as the form field 'token' or the cookie 'token' (missing, empty or 'null' is none)"
    })
  }
  return token
})

export const SessionsHttp = (api: typeof ViewerApi) =>
  HttpApiBuilder.group(api, "sessions", (handlers) =>
    Effect.gen(function*() {
      const sessions = yield* Sessions
      const tokens = yield* TokenValidation

      // Whatever the cookie names, expired or not, is deleted; the browser is told to forget it.
      const destroy = Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const id = request.cookies[SESSION_COOKIE]
        if (id !== undefined && id !== "") yield* sessions.destroy(id)
        yield* answerWithCookie("", 0)
        return "OK"
      })

      return handlers
        .handle("destroy", () => destroy)
        .handle("destroyByPost", () => destroy)
        .handle("destroyByPut", () => destroy)
        .handle("destroyByDelete", () => destroy)
        // A token that names a user makes them the session's user (a new session if the browser has none).
        .handleRaw("validateToken", () =>
          requestToken.pipe(
            Effect.flatMap(tokens.validate),
            Effect.tap(({ user }) =>
              user === null ? Effect.void : Effect.flatMap(ensureSession, (session) => sessions.setUser(session, user))
            ),
            Effect.as("Valid"),
            Effect.provideService(Sessions, sessions),
            Effect.scoped
          ))
    }))
