/**
 * Two broker processes on one PostgreSQL database and one blob directory as the rendition targets
 * of one viewer: documents spread over both by the choice configured, and a broker killed with
 * SIGKILL in the middle of 8 clients' requests → the viewer's clients keep getting pages from the
 * other one; the killed broker started again is used again. PGlite is one process's database, so
 * this runs only when DATABASE_URL is set (as in CI).
 *
 * The documents are uploaded to the brokers directly, alternately; each is opened through the
 * viewer, which then chooses its target (both see it, through the shared database).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { corpusFile, uploadOk } from "../support/http.ts"
import { sleep } from "../support/processes.ts"
import { answeredRight, countPerTarget, databaseUrl, pageCall, twoBrokers, viewerOf } from "./two-brokers.ts"

const FILES = ["pdf/basicapi.pdf", "pdf/tracemonkey.pdf"]

/** `n` new documents, uploaded to the brokers in turn. */
const uploadDocuments = (brokers: ReadonlyArray<{ readonly url: string }>, n: number) =>
  Effect.forEach(
    Array.from({ length: n }, (_, i) => i),
    (i) => uploadOk(brokers[i % brokers.length]!.url, corpusFile(FILES[i % FILES.length]!)),
    { concurrency: 4 }
  )

type Viewer = Effect.Effect.Success<ReturnType<typeof viewerOf>>

/** Opens each document through the viewer, one after another (each first call chooses a target). */
const openEach = (viewer: Viewer, ids: ReadonlyArray<string>) =>
  Effect.forEach(ids, (id) =>
    Effect.map(viewer.servlet(pageCall(id, "image")), (reply) => {
      expect(answeredRight(reply, "image"), `${id}: ${reply.status} ${reply.text.slice(0, 200)}`).toBe(true)
    }))

describe.skipIf(!databaseUrl)("two brokers on one database and one blob directory", () => {
  it.scoped(
    "documents spread over both targets: half each round-robin, both used weighted",
    () =>
      Effect.gen(function*() {
        const { brokers } = yield* twoBrokers
        const urls = brokers.map((b) => b.url)

        const roundRobin = yield* viewerOf(urls, { VIEWER_TARGET_CHOICE: "round-robin" })
        const evenIds = yield* uploadDocuments(brokers, 8)
        expect(new Set(evenIds).size).toBe(8)
        yield* openEach(roundRobin, evenIds)
        // Then many calls at once: each stays with its document's target.
        const replies = yield* Effect.forEach(
          evenIds.flatMap((id) => [pageCall(id, "image"), pageCall(id, "text"), pageCall(id, "text")]),
          (path) =>
            Effect.map(
              roundRobin.servlet(path),
              (reply) => answeredRight(reply, path.startsWith("image") ? "image" : "text")
            ),
          { concurrency: 8 }
        )
        expect(replies.every(Boolean)).toBe(true)
        expect(countPerTarget(yield* roundRobin.assignments, evenIds, urls)).toEqual([4, 4])

        // Idle brokers on one machine have about the same score: each draws about half of 12.
        const weighted = yield* viewerOf(urls, { VIEWER_TARGET_CHOICE: "weighted" })
        const drawnIds = yield* uploadDocuments(brokers, 12)
        yield* openEach(weighted, drawnIds)
        const drawn = countPerTarget(yield* weighted.assignments, drawnIds, urls)
        console.log(`weighted choice over two idle brokers: ${drawn.join(" and ")} of 12 documents`)
        expect(drawn[0]! + drawn[1]!).toBe(12)
        expect(Math.min(...drawn)).toBeGreaterThan(0)
      }),
    { timeout: 240_000 }
  )

  it.scoped(
    "a broker killed mid-run: the clients keep getting answers from the other; back, it is used again",
    () =>
      Effect.gen(function*() {
        const { brokers, kill, restart } = yield* twoBrokers
        const [a, b] = brokers as [typeof brokers[0], typeof brokers[0]]
        const urls = [a.url, b.url]
        const viewer = yield* viewerOf(urls, { VIEWER_TARGET_CHOICE: "round-robin" })
        const ids = yield* uploadDocuments(brokers, 8)
        yield* openEach(viewer, ids)
        expect(countPerTarget(yield* viewer.assignments, ids, urls)).toEqual([4, 4])
        // Each broker has drawn page 0 of its documents: the run measures the switch, not first renders.
        yield* openEach(viewer, ids)

        // 8 clients, each asking in turn for a page image and a page's text of the documents of both brokers.
        const calls: Array<{ readonly startedAt: number; readonly ok: boolean; readonly what: string }> = []
        let running = true
        const client = (n: number) =>
          Effect.gen(function*() {
            for (let i = n; running; i++) {
              const id = ids[i % ids.length]!
              const what = i % 2 === 0 ? "image" as const : "text" as const
              const startedAt = performance.now()
              const reply = yield* viewer.servlet(pageCall(id, what))
              const ok = answeredRight(reply, what)
              calls.push({
                startedAt,
                ok,
                what: ok ? what : `${what} of ${id}: ${reply.status} ${reply.text.slice(0, 160)}`
              })
            }
          })
        // Counted in requests, not seconds: a busy machine answers fewer a second.
        const until = (condition: () => boolean) =>
          Effect.gen(function*() {
            while (!condition()) yield* sleep(50)
          })
        const load = yield* Effect.fork(Effect.forEach([0, 1, 2, 3, 4, 5, 6, 7], client, { concurrency: "unbounded" }))
        yield* until(() => calls.length >= 32)
        const killedAt = performance.now()
        yield* kill(a)
        yield* until(() => calls.filter((c) => c.startedAt >= killedAt).length >= 48)
        running = false
        yield* Fiber.join(load)

        const before = calls.filter((c) => c.startedAt < killedAt)
        const after = calls.filter((c) => c.startedAt >= killedAt)
        const failed = calls.filter((c) => !c.ok)
        console.log(
          `failover: ${calls.length} requests from 8 clients, ${before.length} before the SIGKILL and ${after.length} after; ` +
            `${failed.length} failed in the switch${
              failed.length > 0 ? `: ${failed.map((c) => c.what).join("; ")}` : ""
            }`
        )
        // At most the requests in flight at the kill, one per client; the viewer retries those on b.
        expect(failed.length).toBeLessThanOrEqual(8)
        // Once the switch is over, every request is answered.
        expect(after.slice(-after.length / 2).every((c) => c.ok)).toBe(true)
        // a's documents moved to b, which served them from the shared database and blob directory.
        expect(countPerTarget(yield* viewer.assignments, ids, urls)).toEqual([0, 8])

        // a comes back on its port: after a weather poll, new documents go to it again.
        yield* restart(a)
        yield* sleep(1_000)
        const later = yield* uploadDocuments([b], 4)
        yield* openEach(viewer, later)
        expect(countPerTarget(yield* viewer.assignments, later, urls)).toEqual([2, 2])
        // The documents that moved stay where they are.
        expect(countPerTarget(yield* viewer.assignments, ids, urls)).toEqual([0, 8])
      }),
    { timeout: 240_000 }
  )
})
