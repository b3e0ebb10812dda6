/**
 * Fetches documents from URLs for the broker (documentUrl, /accessor/load). Every URL is hostile
 * until checked: http(s) with no private, loopback or link-local address unless ALLOW_PRIVATE_URLS
 * is set (checked on the address actually connected to, also after redirects, so DNS cannot swap
 * it), and file: URLs or plain paths only inside the directories FILE_URL_ROOTS names.
 */
import { Config, Data, Duration, Effect, Stream } from "effect"
import { lookup } from "node:dns"
import { createReadStream } from "node:fs"
import { realpath } from "node:fs/promises"
import { BlockList, isIP } from "node:net"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { Agent, fetch } from "undici"

/**
 * The document could not be fetched. `invalid`: the address is not one the broker may fetch (the
 * caller's mistake, 400); `unreachable`: it is allowed but did not deliver (500).
 */
export class UrlRefused extends Data.TaggedError("UrlRefused")<{ readonly message: string; readonly reason: "invalid" | "unreachable" }> {}

/** What a fetch delivered: the body and what the server said about it. */
export interface FetchedDocument {
  readonly body: Stream.Stream<Uint8Array, UrlRefused>
  readonly fileName: string | undefined
}

const privateRanges = new BlockList()
for (const [net, prefix] of [["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.168.0.0", 16], ["224.0.0.0", 4], ["240.0.0.0", 4]] as const) {
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

const fileNameFrom = (disposition: string | null, url: URL) => {
  const encoded = disposition && /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition)
  if (encoded) return decodeURIComponent(encoded[1]!.trim())
  const plain = disposition && /filename\s*=\s*"?([^";]+)"?/i.exec(disposition)
  if (plain) return plain[1]!.trim()
  const last = decodeURIComponent(url.pathname.split("/").pop() ?? "")
  return last === "" ? undefined : last
}

export class UrlFetcher extends Effect.Service<UrlFetcher>()("docstack/UrlFetcher", {
  scoped: Effect.gen(function*() {
    const allowPrivate = yield* Config.boolean("ALLOW_PRIVATE_URLS").pipe(Config.withDefault(false))
    const fileRoots = yield* Config.array(Config.string(), "FILE_URL_ROOTS").pipe(Config.withDefault([]))
    const timeout = yield* Config.duration("URL_FETCH_TIMEOUT").pipe(Config.withDefault(Duration.seconds(30)))
    const maxRedirects = 5

    const agent = yield* Effect.acquireRelease(
      Effect.sync(() =>
        new Agent({
          connect: {
            timeout: Duration.toMillis(timeout),
            lookup: (hostname, options, callback) =>
              lookup(hostname, { ...options, all: true }, (error, addresses) => {
                if (error) return callback(error, [])
                const refused = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a.address))
                if (refused) {
                  return callback(Object.assign(new Error(`${hostname} resolves to ${refused.address}, a private or loopback address`), { code: "EPRIVATE" }), [])
                }
                callback(null, addresses)
              })
          }
        })
      ),
      (agent) => Effect.promise(() => agent.close())
    )

    const refuse = (message: string) => new UrlRefused({ message, reason: "invalid" })
    const unreachable = (message: string) => new UrlRefused({ message, reason: "unreachable" })

    /** A local file, after resolving links and `..`, must lie inside one of the configured roots. */
    const readFile = (file: string) =>
      Effect.gen(function*() {
        if (fileRoots.length === 0) return yield* refuse("Local files cannot be loaded: no directory is allowed (FILE_URL_ROOTS)")
        if (!nodePath.isAbsolute(file)) return yield* refuse(`'${file}' is not an absolute path`)
        const roots = yield* Effect.promise(() => Promise.all(fileRoots.map((root) => realpath(root).catch(() => nodePath.resolve(root)))))
        const inside = (candidate: string) => roots.some((root) => candidate.startsWith(root.endsWith(nodePath.sep) ? root : root + nodePath.sep))
        const outside = () => refuse(`${file} is outside the directories local files may be loaded from (FILE_URL_ROOTS)`)
        // Checked before touching the file (whether a file outside exists is none of the caller's business), and again after links.
        if (!inside(nodePath.resolve(file))) return yield* outside()
        const real = yield* Effect.tryPromise({ try: () => realpath(file), catch: () => unreachable(`${file} does not exist or cannot be read`) })
        if (!inside(real)) return yield* outside()
        return {
          body: Stream.fromAsyncIterable(createReadStream(real), (e) => unreachable(`Reading ${file} failed: ${String(e)}`)),
          fileName: nodePath.basename(real)
        } satisfies FetchedDocument
      })

    const fetchOnce = (url: URL) =>
      Effect.tryPromise({
        try: (signal) => fetch(url, { dispatcher: agent, redirect: "manual", signal }),
        catch: (error) => {
          const cause = (error as { cause?: { message?: string; code?: string } }).cause
          const message = `${url.href} could not be fetched: ${cause?.message ?? String(error)}`
          // Refused before connecting: a private address, or a port fetch never uses (SMTP, SSH, ...).
          return cause?.code === "EPRIVATE" || cause?.message === "bad port" ? refuse(message) : unreachable(message)
        }
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
        if (url.protocol === "file:") return yield* readFile(fileURLToPath(url))
        for (let hop = 0; hop <= maxRedirects; hop++) {
          if (url.protocol !== "http:" && url.protocol !== "https:") return yield* refuse(`Only http, https and file URLs are fetched, not ${url.protocol}`)
          // A literal address never goes through the lookup above, so it is checked here.
          const host = url.hostname.replace(/^\[|\]$/g, "")
          if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return yield* refuse(`${host} is a private or loopback address`)
          const response = yield* fetchOnce(url).pipe(
            Effect.timeoutFail({ duration: timeout, onTimeout: () => unreachable(`${url.href} did not answer within ${Duration.format(timeout)}`) })
          )
          const location = response.headers.get("location")
          if (response.status >= 300 && response.status < 400 && location) {
            yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
            url = new URL(location, url)
            continue
          }
          if (!response.ok || !response.body) {
            yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
            return yield* unreachable(`${url.href} answered ${response.status} ${response.statusText}`)
          }
          const body = response.body
          return {
            body: Stream.fromAsyncIterable(body, (e) => unreachable(`Reading ${url.href} failed: ${String(e)}`)),
            fileName: fileNameFrom(response.headers.get("content-disposition"), url)
          } satisfies FetchedDocument
        }
        return yield* refuse(`More than ${maxRedirects} redirects from ${address}`)
      })
    }
  })
}) {}
