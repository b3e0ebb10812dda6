/**
 * The fake LLM provider of the tests (test/support/fake-llm.ts) alone in a process, for the
 * gateway benchmark: the load generator, the fake and the gateway then each have their own event
 * loop. Started by scripts/bench/gateway.ts as `node --import tsx fake-llm-server.ts '<script JSON>'`
 * with an IPC channel; it answers with the script given (see `FakeScript`), records nothing (a load
 * run would make the list of requests a leak), sends `{ url }` to its parent once it listens, and
 * exits on SIGTERM or when its parent goes away.
 *
 * Idle connections stay open, as a hosted provider keeps them for a while: with Node's 5 s
 * keep-alive timeout, a gateway idle for about 5 s between two runs reuses sockets the fake is
 * closing at that instant, and the streamed requests sent on them fail (the gateway does not
 * retry a stream); that is a finding of its own, not the overhead this benchmark measures.
 */
import { type FakeScript, startFakeLlm } from "../../test/support/fake-llm.ts"

const script = JSON.parse(process.argv[2] ?? "{}") as Partial<FakeScript>
const fake = await startFakeLlm({ record: false, keepAliveTimeoutMs: 0 })
fake.script(script)

const exit = () => void fake.close().then(() => process.exit(0))
process.on("SIGTERM", exit)
process.on("disconnect", exit)
process.send?.({ url: fake.url })
