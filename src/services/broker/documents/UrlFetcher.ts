/**
 * Fetches documents from URLs for the broker (documentUrl, /accessor/load), with Node's own HTTP
 * client (undici 7, on Node 20, crashes the process when a server closes the connection while a
 * body waits to be read: nodejs/undici#5360). Every URL is hostile
 * until checked: http(s) with no private, loopback or link-local address unless ALLOW_PRIVATE_URLS
 * is set (checked on the address actually connected to, also after redirects, so DNS cannot swap
 * it), and file: URLs or plain paths only inside the directories FILE_URL_ROOTS names.
 */
import { parse as parseContentDisposition } from "content-disposition"
import { Config, Data, Duration, Effect, Stream } from "effect"
import { lookup, type LookupAddress } from "node:dns"
import { createReadStream } from "node:fs"
import { realpath, stat } from "node:fs/promises"
import * as http from "node:http"
import * as https from "node:https"
import { BlockList, isIP, type LookupFunction } from "node:net"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { durationConfig } from "../../common/DurationConfig.ts"

export class UrlRefused
  extends Data.TaggedError("UrlRefused")<{ readonly message: string; readonly reason: "invalid" | "unreachable" }>
{}

/** What a fetch delivered: the body and what the server said about it. */
export interface FetchedDocument {
  readonly body: Stream.Stream<Uint8Array, UrlRefused>
  readonly fileName: string | undefined
}

const privateRanges = new BlockList()
for (
  const [net, prefix] of [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.168.0.0", 16],
    ["224.0.0.0", 4],
    ["240.0.0.0", 4]
  ] as const
) {
  privateRanges.addSubnet(net, prefix, "ipv4")
}
for (const [net, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) {
  privateRanges.addSubnet(net, prefix, "ipv6")
}

export const isPrivateAddress = (address: string) => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return privateRanges.check(mapped[1]!, "ipv4")
  const family = isIP(address)
  return family === 0 || privateRanges.check(address, family === 4 ? "ipv4" : "ipv6")
}

const headerValue = (value: string | Array<string> | undefined) => (Array.isArray(value) ? value[0] : value) ?? null

/** A percent-encoded path segment as text; as written when its escapes are not UTF-8. */
const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** The file name the server gives (`filename*` preferred, as RFC 6266 says), else the URL's last path segment. */
const fileNameFrom = (disposition: string | null, url: URL) => {
  const given = disposition === null ? undefined : parseContentDisposition(disposition).parameters.filename?.trim()
  if (given) return given
  const last = decodeSegment(url.pathname.split("/").pop() ?? "")
  return last === "" ? undefined : last
}

export class UrlFetcher extends Effect.Service<UrlFetcher>()("docstack/UrlFetcher", {
  effect: Effect.gen(function*() {
    const allowPrivate = yield* Config.boolean("ALLOW_PRIVATE_URLS").pipe(Config.withDefault(false))
    const fileRoots = yield* Config.array(Config.string(), "FILE_URL_ROOTS").pipe(Config.withDefault([]))
    const timeout = yield* durationConfig("URL_FETCH_TIMEOUT", Duration.seconds(30))
    const maxRedirects = 5

    /** DNS lookup that refuses private addresses, so the check applies to the address actually connected to. */
    const checkedLookup: LookupFunction = (hostname, options, callback) =>
      lookup(hostname, { ...options, all: true }, (error, addresses: Array<LookupAddress>) => {
        if (error) return callback(error, "", 0)
        const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address))
        if (refused) {
          return callback(
            Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private or loopback address`), {
              code: "EPRIVATE"
            }),
            "",
            0
          )
        }
        if (options.all) return (callback as unknown as (e: null, all: Array<LookupAddress>) => void)(null, addresses)
        callback(null, addresses[0]!.address, addresses[0]!.family)
      })

    const refuse = (message: string) => new UrlRefused({ message, reason: "invalid" })
    const unreachable = (message: string) => new UrlRefused({ message, reason: "unreachable" })

    /** A local file, after resolving links and `..`, must lie inside one of the configured roots. */
    const readFile = (file: string) =>
      Effect.gen(function*() {
        if (fileRoots.length === 0) {
          return yield* refuse("Local files cannot be loaded: no directory is allowed (FILE_URL_ROOTS)")
        }
        if (!nodePath.isAbsolute(file)) return yield* refuse(`'${file}' is not an absolute path`)
        const realRoots = yield* Effect.promise(() =>
          Promise.all(fileRoots.map((root) => realpath(root).catch(() => nodePath.resolve(root))))
        )
        const within = (roots: ReadonlyArray<string>, candidate: string) =>
          roots.some((root) =>
            candidate === root || candidate.startsWith(root.endsWith(nodePath.sep) ? root : root + nodePath.sep)
          )
        const outside = () =>
          refuse(`${file} is outside the directories local files may be loaded from (FILE_URL_ROOTS)`)
        // Checked before touching the file (whether a file outside exists is none of the caller's business),
        // against the roots as written or as resolved (a root may be a link), then after links against the resolved roots.
        const given = nodePath.resolve(file)
        if (
          !within(fileRoots.map((root) => nodePath.resolve(root)), given) && !within(realRoots, given)
        ) return yield* outside()
        const real = yield* Effect.tryPromise({
          try: () => realpath(file),
          catch: () => unreachable(`${file} does not exist or cannot be read`)
        })
        if (!within(realRoots, real)) return yield* outside()
        const isFile = yield* Effect.promise(() => stat(real).then((s) => s.isFile(), () => false))
        if (!isFile) return yield* refuse(`${file} is not a file (a directory cannot be loaded as a document)`)
        return {
          body: Stream.fromAsyncIterable(
            createReadStream(real),
            (e) => unreachable(`Reading ${file} failed: ${String(e)}`)
          ),
          fileName: nodePath.basename(real)
        } satisfies FetchedDocument
      })

    /** One GET, answered once the headers are in; the body then streams, each read bounded by the timeout too. */
    const fetchOnce = (url: URL) =>
      Effect.async<http.IncomingMessage, UrlRefused>((resume) => {
        const failed = (error: Error & { code?: string }) => {
          const message = `${url.href} could not be fetched: ${error.message}`
          resume(Effect.fail(error.code === "EPRIVATE" ? refuse(message) : unreachable(message)))
        }
        const request = (url.protocol === "https:" ? https : http).get(url, {
          lookup: checkedLookup,
          timeout: Duration.toMillis(timeout),
          headers: { "user-agent": "docstack-broker", accept: "*/*" }
        }, (response) => resume(Effect.succeed(response)))
        request.on("error", failed)
        request.on("timeout", () =>
          request.destroy(
            Object.assign(new Error(`no answer within ${Duration.format(timeout)}`), { code: "ETIMEDOUT" })
          ))
        return Effect.sync(() => request.destroy())
      })

    return {
      fetch: Effect.fn("UrlFetcher.fetch")(function*(address: string) {
        if (address.startsWith("/")) return yield* readFile(address)
        let url: URL
        try {
          url = new URL(address)
        } catch {
          return yield* refuse(`'${address}' is not a URL`)
        }
        if (url.protocol === "file:") {
          if (url.hostname !== "" && url.hostname !== "localhost") {
            return yield* refuse(`Only local files can be loaded, not ${url.href}`)
          }
          return yield* readFile(fileURLToPath(url))
        }
        for (let hop = 0; hop <= maxRedirects; hop++) {
          if (url.protocol !== "http:" && url.protocol !== "https:") {
            return yield* refuse(`Only http, https and file URLs are fetched, not ${url.protocol}`)
          }
          // A literal address never goes through the lookup above, so it is checked here.
          const host = url.hostname.replace(/^\[|\]$/g, "")
          if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
            return yield* refuse(`${host} is a private or loopback address`)
          }
          const response = yield* fetchOnce(url).pipe(
            Effect.timeoutFail({
              duration: timeout,
              onTimeout: () => unreachable(`${url.href} did not answer within ${Duration.format(timeout)}`)
            })
          )
          const status = response.statusCode ?? 0
          const location = response.headers.location
          if (status >= 300 && status < 400 && location) {
            response.resume()
            url = new URL(location, url)
            continue
          }
          if (status < 200 || status >= 300) {
            response.resume()
            return yield* unreachable(`${url.href} answered ${status} ${response.statusMessage ?? ""}`.trim())
          }
          const source = url
          return {
            body: Stream.fromAsyncIterable(
              response as AsyncIterable<Uint8Array>,
              (e) => unreachable(`Reading ${source.href} failed: ${String(e)}`)
            ),
            fileName: fileNameFrom(headerValue(response.headers["content-disposition"]), url)
          } satisfies FetchedDocument
        }
        return yield* refuse(`More than ${maxRedirects} redirects from ${address}`)
      })
    }
  })
}) {}
