/**
 * The annotation tests' side of the broker's HTTP API: JSON requests, and a corpus document ready
 * to be annotated with its /annotation URL and what is listed there.
 */
import { Effect } from "effect"
import { BrokerUrl } from "../../../src/layers/Test.ts"
import { call, corpusFile, uploadOk } from "../../support/http.ts"

export const json = (method: string, body: unknown) => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

/** A corpus file (`pdf/…`) uploaded: the broker's URL, the document's ID, its /annotation URL and listing. */
export const annotatedDocument = (file: string) =>
  Effect.gen(function*() {
    const base = yield* BrokerUrl
    const id = yield* uploadOk(base, corpusFile(file))
    const url = `${base}/annotation?documentId=${id}`
    return { base, id, url, list: call(url).pipe(Effect.map((reply) => reply.json.annotations as Array<any>)) }
  })
