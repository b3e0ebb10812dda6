/**
 * The session cookie: which viewer session a request belongs to (sessions live in the database,
 * src/services/viewer/sessions/Sessions.ts). A servlet that needs a session makes one when the
 * browser has none, and the answer sets the cookie.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { Sessions } from "../../services/viewer/sessions/Sessions.ts"

export const SESSION_COOKIE = "DOCSTACK_VIEWER_SESSION"

/** The request's session, if it has a live one. */
export const currentSession = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const id = request.cookies[SESSION_COOKIE]
  if (id === undefined || id === "") return Option.none()
  return yield* (yield* Sessions).find(id)
})

/** Sets (or, with `maxAge` 0, clears) the cookie on this request's answer. */
export const answerWithCookie = (value: string, maxAge?: number) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(
      HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, value, {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        ...(maxAge === undefined ? {} : { maxAge })
      })
    )
  )

/** The request's session ID, a new session's when it has none (the answer then sets the cookie). */
export const ensureSession = Effect.gen(function*() {
  const found = yield* currentSession
  if (Option.isSome(found)) return found.value.id
  const request = yield* HttpServerRequest.HttpServerRequest
  const id = yield* (yield* Sessions).create(request.headers["user-agent"])
  yield* answerWithCookie(id)
  return id
})

/**
 * Opening a document makes it the session's current document (docs/viewer.md "The current
 * document"); a browser without a session gets one.
 */
export const makeCurrent = (brokerId: string) =>
  Effect.flatMap(
    ensureSession,
    (session) => Effect.flatMap(Sessions, (sessions) => sessions.setCurrentDocument(session, brokerId))
  )

/** The user of the request's session (validateToken recorded one), if it has one. */
export const sessionUser = Effect.map(
  currentSession,
  Option.flatMap((session) => Option.fromNullable(session.userName))
)
