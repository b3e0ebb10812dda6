import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { SignJWT } from "jose"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { viewerTestLayer, ViewerUrl } from "../../src/layers/Test.ts"
import { call } from "../support/http.ts"

const COOKIE = "DOCSTACK_VIEWER_SESSION"
const NO_BROKER = { RENDITION_TARGETS: "http://127.0.0.1:9" }

/** A viewer built apart (two viewers in one it.layer context would share one router), with its database. */
const viewer = (settings: Record<string, string>) =>
  Effect.map(Layer.build(viewerTestLayer({ ...NO_BROKER, ...settings })), (context) => {
    const sql = Context.get(context, SqlClient.SqlClient)
    return {
      servlet: (path: string, init?: RequestInit) => call(`${Context.get(context, ViewerUrl)}/viewergwt/${path}`, init),
      /** The user of the session the answer's cookie names; undefined when there is no such session. */
      userOf: (setCookie: string | null) =>
        Effect.map(
          sql<{ userName: string | null }>`SELECT user_name FROM viewer_sessions WHERE id = ${
            sessionOf(setCookie) ?? ""
          }`
            .pipe(Effect.orDie),
          (rows) => rows[0]?.userName
        ),
      sessionCount: Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM viewer_sessions`.pipe(Effect.orDie),
        (r) => r[0]!.n
      )
    }
  })

const form = (token: string, cookie?: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...(cookie === undefined ? {} : { cookie }) },
  body: new URLSearchParams({ token }).toString()
})

/** The session ID a Set-Cookie header gives. */
const sessionOf = (setCookie: string | null) => new RegExp(`${COOKIE}=([^;]+)`).exec(setCookie ?? "")?.[1]

const SECRET = "a test secret of enough length for HS256"
const signed = (claims: { sub?: string }, secret = SECRET) =>
  Effect.promise(() =>
    new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("5m").sign(
      new TextEncoder().encode(secret)
    )
  )

describe("validateToken", () => {
  it.scoped(
    "not-null (default): a token as a form field (URL-encoded or multipart) or a cookie is Valid; none or null is a 400",
    () =>
      Effect.gen(function*() {
        const { servlet } = yield* viewer({})
        const encoded = yield* servlet("validateToken", form("abc"))
        expect([encoded.status, encoded.text]).toEqual([200, "Valid"])
        const multipart = new FormData()
        multipart.set("token", "abc")
        expect((yield* servlet("validateToken", { method: "POST", body: multipart })).text).toBe("Valid")
        expect((yield* servlet("validateToken", { method: "POST", headers: { cookie: "token=abc" } })).text).toBe(
          "Valid"
        )
        for (const init of [{ method: "POST" }, form(""), form("null"), form("null", "token=null")]) {
          const refused = yield* servlet("validateToken", init)
          expect(refused.status).toBe(400)
          expect(refused.json._tag).toBe("InvalidRequest")
          expect(refused.json.message).toContain("token")
        }
      }),
    { timeout: 180_000 }
  )

  it.scoped(
    "jwt: a token signed with the secret is Valid and its sub becomes the session's user; destroySession ends it",
    () =>
      Effect.gen(function*() {
        const { servlet, sessionCount, userOf } = yield* viewer({
          VIEWER_TOKEN_VALIDATOR: "jwt",
          VIEWER_JWT_SECRET: SECRET
        })
        const valid = yield* servlet("validateToken", form(yield* signed({ sub: "alice" })))
        expect([valid.status, valid.text]).toEqual([200, "Valid"])
        const cookie = valid.headers.get("set-cookie")
        expect(yield* userOf(cookie)).toBe("alice")

        const forged = yield* servlet(
          "validateToken",
          form(yield* signed({ sub: "mallory" }, "another secret of enough length"))
        )
        expect(forged.status).toBe(403)
        expect(forged.json._tag).toBe("TokenRejected")
        expect((yield* servlet("validateToken", form("not.a.jwt"))).status).toBe(403)

        // destroySession: the row deleted, the cookie cleared; any method, with or without a session.
        const before = yield* sessionCount
        const destroyed = yield* servlet("destroySession", { headers: { cookie: `${COOKIE}=${sessionOf(cookie)}` } })
        expect([destroyed.status, destroyed.text]).toEqual([200, "OK"])
        expect(destroyed.headers.get("set-cookie")).toMatch(new RegExp(`^${COOKIE}=; Max-Age=0`))
        expect(yield* sessionCount).toBe(before - 1)
        expect(yield* userOf(cookie)).toBeUndefined()
        for (const method of ["POST", "PUT", "DELETE"]) {
          const reply = yield* servlet("destroySession", { method })
          expect([reply.status, reply.text]).toEqual([200, "OK"])
        }
      }),
    { timeout: 180_000 }
  )

  it.scoped(
    "http: the token posted as a form to the validation service; 2xx Valid (its user kept), 401/403 a 403, else a 500",
    () =>
      Effect.gen(function*() {
        const received: Array<string> = []
        const server = createServer((request, response) => {
          let body = ""
          request.on("data", (chunk) => (body += chunk))
          request.on("end", () => {
            received.push(`${request.method} ${request.headers["content-type"]} ${body}`)
            const token = new URLSearchParams(body).get("token")
            if (token === "good") response.writeHead(200, { "content-type": "application/json" }).end(`{"user":"bob"}`)
            else if (token === "plain") response.writeHead(204).end()
            else if (token === "bad") response.writeHead(403).end()
            else response.writeHead(502).end()
          })
        })
        yield* Effect.acquireRelease(
          Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
          () => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
        )
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check`
        const { servlet, userOf } = yield* viewer({ VIEWER_TOKEN_VALIDATOR: "http", VIEWER_TOKEN_VALIDATION_URL: url })

        const good = yield* servlet("validateToken", form("good"))
        expect([good.status, good.text]).toEqual([200, "Valid"])
        expect(received[0]).toBe("POST application/x-www-form-urlencoded token=good")
        expect(yield* userOf(good.headers.get("set-cookie"))).toBe("bob")
        expect((yield* servlet("validateToken", form("plain"))).text).toBe("Valid")
        const bad = yield* servlet("validateToken", form("bad"))
        expect([bad.status, bad.json._tag]).toEqual([403, "TokenRejected"])
        const broken = yield* servlet("validateToken", form("other"))
        expect([broken.status, broken.json._tag]).toEqual([500, "TokenValidationFailed"])
        expect(broken.json.message).toContain("answered 502")
        yield* Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
        const gone = yield* servlet("validateToken", form("good"))
        expect(gone.status).toBe(500)
        expect(gone.json.message).toContain("could not be reached")
      }),
    { timeout: 180_000 }
  )

  it.effect("jwt without a secret or a key set stops the viewer at start, saying why", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(
        Effect.scoped(Layer.build(viewerTestLayer({ ...NO_BROKER, VIEWER_TOKEN_VALIDATOR: "jwt" })))
      )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        expect(Cause.pretty(exit.cause)).toContain("VIEWER_TOKEN_VALIDATOR=jwt needs VIEWER_JWT_SECRET")
      }
    }), { timeout: 180_000 })
})
