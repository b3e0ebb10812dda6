/**
 * Inside a PDF worker thread: a feature's handlers whose module loads on the first request for one
 * of them. The worker's bundle is split by feature (WorkerBundle.ts), so a thread asked only for
 * page images and text never loads pdf.js, pdf-lib or the code of signatures, messages and
 * redaction (docs/page-images.md, "A worker thread's start").
 */
import { Effect } from "effect"

/** Handlers for `requests` that load the feature's own (`load`, a dynamic import) once, when first asked. */
export const loadedOnFirstRequest = <H extends Readonly<Record<string, (request: never) => unknown>>>(
  requests: ReadonlyArray<{ readonly _tag: NoInfer<keyof H & string> }>,
  load: () => Promise<H>
): H => {
  let loading: Promise<H> | undefined
  const loaded = Effect.promise(() => (loading ??= load()))
  const entries = requests.map(({ _tag }) => {
    const handler = (request: unknown) =>
      Effect.flatMap(loaded, (handlers) => {
        const answer = (handlers[_tag] as unknown as (request: unknown) => unknown)(request)
        // Every feature answers with an Effect; a stream or a layer would need its own forwarding.
        return Effect.isEffect(answer) ? answer : Effect.dieMessage(`${_tag} did not answer with an Effect`)
      })
    return [_tag, handler] as const
  })
  // The record has the handlers' keys named by `requests` and forwards each call unchanged.
  return Object.fromEntries(entries) as unknown as H
}
