/**
 * The fake LLM provider of the tests (test/support/fake-llm.ts) alone in a process, for the
 * gateway benchmark: the load generator, the fake and the gateway then each have their own event
 * loop. Started by gateway/fake-llm.ts as `node --import tsx fake-llm-server.ts` with an IPC
 * channel; it sends `{ url }` to its parent once it listens, records no request list (a load run
 * would make it a leak), and exits on SIGTERM or when its parent goes away.
 *
 * Messages from the parent: `{ script }` replaces the answer script (answered `{ scripted: true }`);
 * `{ timings: true }` is answered `{ timings }` with the fake's own time on each tagged request
 * since the last such message: questions carrying a tag `q#<id>` (the last one in the body, so a
 * conversation's history does not confuse it) are timed from the moment the fake started on them
 * to their first text and to their last byte. Subtracting those from what the client saw leaves
 * what lay between client and fake: the gateway's own time, request by request.
 *
 * Idle connections stay open, as a hosted provider keeps them for a while: with Node's 5 s
 * keep-alive timeout, a gateway idle for about 5 s between two runs reuses sockets the fake is
 * closing at that instant, and the streamed requests sent on them fail (the gateway does not
 * retry a stream); that is a finding of its own, not the overhead this benchmark measures.
 */
import { type FakeScript, type RecordedRequest, startFakeLlm } from "../../../test/support/fake-llm.ts"

/** The fake's own time on one request, in milliseconds. */
export interface FakeTiming {
  readonly firstTextMs: number
  readonly totalMs: number
}

export type FromParent = { readonly script: Partial<FakeScript> } | { readonly timings: true }
export type ToParent = { readonly url: string } | { readonly scripted: true } | {
  readonly timings: Record<string, FakeTiming>
}

const TAG = /q#([0-9a-z]+)/g

let timings: Record<string, FakeTiming> = {}
const timed = (record: RecordedRequest) => {
  if (record.finishedAt === undefined || record.firstTextAt === undefined) return
  const tags = [...JSON.stringify(record.body).matchAll(TAG)]
  const tag = tags.at(-1)?.[1]
  if (tag !== undefined) {
    timings[tag] = {
      firstTextMs: record.firstTextAt - record.receivedAt,
      totalMs: record.finishedAt - record.receivedAt
    }
  }
}

const fake = await startFakeLlm({ record: false, keepAliveTimeoutMs: 0, onFinished: timed })
const send = (message: ToParent) => process.send?.(message)

process.on("message", (message: FromParent) => {
  if ("script" in message) {
    fake.script(message.script)
    send({ scripted: true })
  } else {
    send({ timings })
    timings = {}
  }
})
const exit = () => void fake.close().then(() => process.exit(0))
process.on("SIGTERM", exit)
process.on("disconnect", exit)
send({ url: fake.url })
