/**
 * Inside a PDF worker thread: the settings the engine handed it (PdfWorkerSetup in
 * src/layers/Broker.ts). A module of its own, so that reading them loads no PDF library: a thread
 * loads pdf.js and pdf-lib only for the first request that needs them (src/layers/PdfWorker.ts).
 */
import { workerData } from "node:worker_threads"

/** A feature's settings as the engine handed them to the thread, or `fallback` (a thread started by a test). */
export const workerSettings = <A>(feature: string, fallback: A): A =>
  (workerData?.[feature] as A | undefined) ?? fallback
