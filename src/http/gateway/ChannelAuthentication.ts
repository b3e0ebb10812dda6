/**
 * The WebSocket's door: the tenant and user resolved as for every user endpoint (trusted headers,
 * or a bearer token), except that a browser cannot set headers on a WebSocket: with JWT, the
 * token may come as the query parameter `access_token` instead (RFC 6750, 2.3).
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Layer } from "effect"
import { CurrentPrincipal } from "../../schemas/gateway/Tenancy.ts"
import { Tenancy } from "../../services/gateway/tenancy/Tenancy.ts"
import { UserAuthentication } from "./Authentication.ts"

export class ChannelAuthentication extends HttpApiMiddleware.Tag<ChannelAuthentication>()(
  "gateway/ChannelAuthentication",
  { failure: UserAuthentication.failure, provides: CurrentPrincipal }
) {}

export const ChannelAuthenticationLive = Layer.effect(
  ChannelAuthentication,
  Tenancy.pipe(
    Effect.map((tenancy) =>
      HttpServerRequest.HttpServerRequest.pipe(
        Effect.flatMap((request) => {
          const token = new URL(request.url, "http://gateway").searchParams.get("access_token")
          const headers = tenancy.mode === "jwt" && request.headers.authorization === undefined && token !== null
            ? { ...request.headers, authorization: `Bearer ${token}` }
            : request.headers
          return tenancy.resolve(headers)
        })
      )
    )
  )
).pipe(Layer.provide(Tenancy.Default))
