/**
 * Calls to the gateway as a client makes them: trusted identity headers, JSON bodies, and the
 * spec's error body checked exactly.
 */
import { expect } from "@effect/vitest"

/** Trusted headers for a tenant, a user and (comma-separated) roles. */
export const as = (tenant: string, user: string, roles = "") => ({ "x-tenant-id": tenant, "x-user-id": user, ...(roles ? { "x-user-roles": roles } : {}) })

export const json = (headers: Record<string, string>, body: unknown, method = "POST") => ({
  method,
  headers: { ...headers, "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** Every error answer is exactly the spec's body. */
export const expectErrorBody = (reply: { status: number; json: any }, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(Object.keys(reply.json).sort()).toEqual(["code", "message", "status"])
  expect(reply.json).toMatchObject({ code, status })
  expect(reply.json.message.length).toBeGreaterThan(5)
}
