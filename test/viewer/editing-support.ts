/**
 * Calls of the browser viewer's editing routes (annotations, orders, difference) as a browser makes
 * them, for the tests of those routes.
 */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import type { Reply } from "../support/http.ts"
import { servlet } from "./support.ts"

export interface Rect {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

/** A JSON body sent with `method`, with the session cookie when given. */
export const json = (method: string, body: unknown, cookie?: string): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...(cookie === undefined ? {} : { cookie }) },
  body: JSON.stringify(body)
})

const query = (uuid: string) => `uuid=${encodeURIComponent(uuid)}`

/** GET annotations, failing the test on anything but 200. */
export const listed = (uuid: string) =>
  Effect.map(servlet(`annotations?${query(uuid)}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply.json as {
      annotations: ReadonlyArray<Record<string, any>>
      store: string
      skipped: number
    }
  })

/** POST, PUT or DELETE annotations. */
export const annotationsCall = (method: "POST" | "PUT" | "DELETE", uuid: string, body: unknown, cookie?: string) =>
  servlet(`annotations?${query(uuid)}`, json(method, body, cookie))

/** An order's state, `waitMs` at most for it to end. */
export const order = (uuid: string, kind: string, orderId: string, waitMs = 0) =>
  servlet(`order?${query(uuid)}&kind=${kind}&orderId=${encodeURIComponent(orderId)}&waitMs=${waitMs}`)

/** Polls the order until it ends, failing the test unless it is PROCESSED: its status. */
export const processedOrder = (uuid: string, kind: string, orderId: string) =>
  Effect.gen(function*() {
    let reply: Reply
    do {
      reply = yield* order(uuid, kind, orderId, 10_000)
      expect(reply.status, reply.text).toBe(200)
    } while (reply.json.state === "QUEUED" || reply.json.state === "PROCESSING")
    expect(reply.json.state, reply.text).toBe("PROCESSED")
    return reply.json as { result: string; results: ReadonlyArray<string> } & Record<string, unknown>
  })

/** POST transformation, failing the test on anything but 200: the order as started. */
export const transformed = (body: unknown) =>
  Effect.map(servlet("transformation", json("POST", body)), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply.json as { kind: string; orderId: string; uuid: string }
  })

/** The text of a page as pageContent gives it, runs joined by spaces. */
export const pageText = (uuid: string, page: number) =>
  Effect.map(servlet(`pageContent?${query(uuid)}&pagePosition=${page}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return (reply.json.positionTextList as ReadonlyArray<{ text: string }>).map((run) => run.text).join(" ")
  })

/** A square on `page` at `position`. */
export const square = (page: number, position: Rect, extra: Record<string, unknown> = {}) => ({
  type: "Square",
  page,
  position,
  color: { r: 255, g: 0, b: 0 },
  ...extra
})
