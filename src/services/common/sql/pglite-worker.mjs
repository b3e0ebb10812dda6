// The embedded database's own thread: PGlite runs its statements here, so that a statement (about a
// millisecond of WebAssembly each) never holds up the event loop that answers HTTP requests.
// Messages: { id, sql, params, rowMode } → { id, result } or { id, error }; { id, close: true } →
// { id, closed: true }. Plain JavaScript: it runs without the TypeScript loader.
import { PGlite } from "@electric-sql/pglite"
import { parentPort, workerData } from "node:worker_threads"

/** What crosses back of a failure: its message and the fields PostgreSQL gives (SQLSTATE `code` first). */
const errorFields = (error) => {
  const fields = { message: error instanceof Error ? error.message : String(error) }
  for (const key of ["code", "detail", "hint", "severity", "position", "schema", "table", "column", "constraint"]) {
    if (error && typeof error === "object" && error[key] !== undefined) fields[key] = error[key]
  }
  return fields
}

let db
try {
  db = await PGlite.create(workerData.dataDir, { startParams: workerData.startParams })
} catch (error) {
  parentPort.postMessage({ ready: false, error: errorFields(error) })
  process.exit(1)
}

parentPort.on("message", async (message) => {
  if (message.close) {
    await db.close()
    parentPort.postMessage({ id: message.id, closed: true })
    return
  }
  try {
    const { rows, fields, affectedRows } = await db.query(message.sql, message.params, { rowMode: message.rowMode })
    parentPort.postMessage({ id: message.id, result: { rows, fields, affectedRows } })
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: errorFields(error) })
  }
})
parentPort.postMessage({ ready: true })
