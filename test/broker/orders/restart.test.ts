/**
 * A broker process killed in the middle of a conversion: after a restart the order is claimed again
 * (its lease ran out) and finishes; nothing is stuck, nothing is lost, no LibreOffice is left over.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { isolatedDatabaseUrl, newDataDir } from "../../../src/layers/Test.ts"
import { isRunning } from "../../../src/services/common/Processes.ts"
import { defaultBackend } from "../../support/backends.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"
import { awaitExit, freePort, sleep, startService } from "../../support/processes.ts"

const startBroker = (env: Record<string, string>, port: number) => startService("broker", env, port)

/** The LibreOffice processes (soffice.bin) under a process: only this broker's, whatever else runs on the machine. */
const officeProcessesUnder = (root: number) => {
  const children = new Map<number, Array<number>>()
  for (const line of execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" }).trim().split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number)
    children.set(ppid!, [...(children.get(ppid!) ?? []), pid!])
  }
  const under: Array<number> = []
  for (let queue = [root]; queue.length > 0;) {
    const pid = queue.pop()!
    for (const child of children.get(pid) ?? []) {
      under.push(child)
      queue.push(child)
    }
  }
  const command = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8")
    } catch {
      return "" // gone meanwhile
    }
  }
  return under.filter((pid) => command(pid).includes("soffice.bin"))
}

/** A broker process on a fresh data directory (and schema), converting the 872-page handbook: its order is PROCESSING. */
const brokerConverting = (lease: string) =>
  Effect.gen(function*() {
    const database = defaultBackend.config.DATABASE_URL
      ? { DATABASE_URL: (yield* isolatedDatabaseUrl(defaultBackend.config.DATABASE_URL)).url }
      : {}
    const env = {
      ...database,
      DATA_DIR: newDataDir(),
      ORDER_LEASE: lease,
      ORDER_POLL_INTERVAL: "200 millis",
      OFFICE_INSTANCES: "1"
    }
    const port = yield* freePort
    const first = yield* startBroker(env, port)
    const id = yield* uploadOk(first.base, corpusFile("office/handbook-872p.docx"))
    const orderId = (yield* call(`${first.base}/documents/${id}`)).json.conversionOrderIds.pdf.id as string
    let state = ""
    for (let i = 0; i < 600 && state !== "PROCESSING"; i++) {
      state = (yield* call(`${first.base}/conversions/${orderId}`)).json.currentState
      if (state !== "PROCESSING") yield* sleep(100)
    }
    expect(state).toBe("PROCESSING")
    return { env, first, id, orderId, port }
  })

describe("restart", () => {
  it.scoped("an order whose broker was killed mid-conversion finishes after a restart", () =>
    Effect.gen(function*() {
      const { env, first, id, orderId, port } = yield* brokerConverting("3 seconds")
      yield* sleep(1000)
      const office = officeProcessesUnder(first.child.pid!)
      expect(office.length).toBeGreaterThan(0)
      first.child.kill("SIGKILL")
      yield* awaitExit(first.child)
      // The LibreOffice of the dead broker goes with it.
      for (let i = 0; i < 100 && office.some(isRunning); i++) yield* sleep(100)
      expect(office.filter(isRunning)).toEqual([])

      const second = yield* startBroker(env, port)
      // The document and its order survived; once the old lease runs out the order is taken up again.
      const layout = yield* call(`${second.base}/documents/${id}/layout`)
      expect(layout.status).toBe(200)
      expect(layout.json.pageDimensionsList.length).toBeGreaterThan(400)
      const order = (yield* call(`${second.base}/conversions/${orderId}`)).json
      expect(order.currentState).toBe("PROCESSED")
      expect(order.errorMessage).toBeNull()
      expect((yield* call(`${second.base}/conversions`)).json.map((o: { conversionOrderId: { id: string } }) =>
        o.conversionOrderId.id
      )).toEqual([orderId])
    }), { timeout: 400_000 })

  it.scoped(
    "a broker stopped gracefully gives its running order back at once, not after its lease",
    () =>
      Effect.gen(function*() {
        // A lease far longer than the test: only giving the order back lets the restarted broker take it.
        const { env, first, id, orderId, port } = yield* brokerConverting("10 minutes")
        first.child.kill("SIGTERM")
        yield* awaitExit(first.child)

        const second = yield* startBroker(env, port)
        const started = Date.now()
        expect((yield* call(`${second.base}/documents/${id}/layout`)).status).toBe(200)
        expect(Date.now() - started).toBeLessThan(120_000)
        expect((yield* call(`${second.base}/conversions/${orderId}`)).json.currentState).toBe("PROCESSED")
      }),
    { timeout: 400_000 }
  )
})
