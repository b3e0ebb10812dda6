/**
 * The viewer section's requests: GETs over keep-alive connections (node:http, one agent per
 * target), read to the last byte and checked (status, type, PNG width or text runs), so an error
 * answer is never a fast sample. A client walks the document's pages in turn, each client starting
 * on a page of its own.
 */
import { type Agent, request } from "node:http"
import type { Send } from "../gateway/load.ts"
import { pngWidth } from "../lib/http.ts"

export interface Answer {
  readonly status: number
  readonly contentType: string
  readonly body: Buffer
}

export const get = (agent: Agent, url: string) =>
  new Promise<Answer>((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers["content-type"] ?? "",
          body: Buffer.concat(chunks)
        }))
      res.on("error", reject)
    })
    req.setTimeout(60_000, () => req.destroy(new Error(`GET ${url} timed out after 60 s`)))
    req.on("error", reject)
    req.end()
  })

export type Kind = "image" | "text"

/** What the viewer and the broker answer for the same page: a PNG `width` wide, or the page's text runs. */
export const checkAnswer = (answer: Answer, kind: Kind, width: number, url: string) => {
  const ok = answer.status === 200 && (kind === "image"
    ? answer.contentType.startsWith("image/png") && pngWidth(answer.body) === width
    : answer.contentType.startsWith("application/json") &&
      (JSON.parse(answer.body.toString("utf8")) as { positionTextList?: Array<unknown> }).positionTextList!.length > 0)
  if (!ok) {
    throw new Error(
      `GET ${url} answered ${answer.status} ${answer.contentType}: ${answer.body.toString("utf8", 0, 200)}`
    )
  }
}

/** The URL of page `page` of `id`, straight from the broker or through the viewer (whose ID is the broker's). */
export const pageUrl = (
  base: string,
  via: "broker" | "viewer",
  kind: Kind,
  id: string,
  page: number,
  width: number
) => {
  const uuid = encodeURIComponent(id)
  if (via === "viewer") {
    return kind === "image"
      ? `${base}/viewergwt/imageServlet?uuid=${uuid}&pagePosition=${page}&desc=${width}`
      : `${base}/viewergwt/pageContent?uuid=${uuid}&pagePosition=${page}`
  }
  return kind === "image"
    ? `${base}/documents/${uuid}/pages/${page}/image?pageImageDescription=IM_${width}_0`
    : `${base}/documents/${uuid}/pages/${page}/text/position`
}

/** A closed-loop client's request: the next page of the document, checked. */
export const pageRequests = (
  agent: Agent,
  base: string,
  via: "broker" | "viewer",
  kind: Kind,
  id: string,
  pages: number,
  width: number
): Send => {
  const next = new Map<number, number>()
  return async (client, startedAt) => {
    const page = next.get(client) ?? client % pages
    next.set(client, (page + 1) % pages)
    const url = pageUrl(base, via, kind, id, page, width)
    checkAnswer(await get(agent, url), kind, width, url)
    return { ms: performance.now() - startedAt }
  }
}
