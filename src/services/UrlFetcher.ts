/**
 * Fetches documents from URLs for the broker (documentUrl). Every URL is hostile until checked: only
 * http(s), and no private, loopback or link-local address unless ALLOW_PRIVATE_URLS is set. The
 * check runs on the address actually connected to (also after redirects), so DNS cannot swap it.
 */
import { Config, Data, Duration, Effect, Stream } from "effect"
import { lookup } from "node:dns"
import { BlockList, isIP } from "node:net"
import { Agent, fetch } from "undici"

export class UrlRefused extends Data.TaggedError("UrlRefused")<{ readonly message: string }> {}

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

    const refuse = (message: string) => new UrlRefused({ message })

    const fetchOnce = (url: URL) =>
      Effect.tryPromise({
        try: (signal) => fetch(url, { dispatcher: agent, redirect: "manual", signal }),
        catch: (error) => {
          const cause = (error as { cause?: { message?: string; code?: string } }).cause
          return refuse(`${url.href} could not be fetched: ${cause?.message ?? String(error)}`)
        }
      })

    return {
      fetch: Effect.fn("UrlFetcher.fetch")(function*(address: string) {
        let url: URL
        try {
          url = new URL(address)
        } catch {
          return yield* refuse(`documentUrl '${address}' is not a URL`)
        }
        for (let hop = 0; hop <= maxRedirects; hop++) {
          if (url.protocol !== "http:" && url.protocol !== "https:") return yield* refuse(`Only http and https URLs are fetched, not ${url.protocol}`)
          // A literal address never goes through the lookup above, so it is checked here.
          const host = url.hostname.replace(/^\[|\]$/g, "")
          if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return yield* refuse(`${host} is a private or loopback address`)
          const response = yield* fetchOnce(url).pipe(
            Effect.timeoutFail({ duration: timeout, onTimeout: () => refuse(`${url.href} did not answer within ${Duration.format(timeout)}`) })
          )
          const location = response.headers.get("location")
          if (response.status >= 300 && response.status < 400 && location) {
            yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
            url = new URL(location, url)
            continue
          }
          if (!response.ok || !response.body) {
            yield* Effect.promise(() => response.body?.cancel() ?? Promise.resolve())
            return yield* refuse(`${url.href} answered ${response.status} ${response.statusText}`)
          }
          const body = response.body
          return {
            body: Stream.fromAsyncIterable(body, (e) => refuse(`Reading ${url.href} failed: ${String(e)}`)),
            fileName: fileNameFrom(response.headers.get("content-disposition"), url)
          } satisfies FetchedDocument
        }
        return yield* refuse(`More than ${maxRedirects} redirects from ${address}`)
      })
    }
  })
}) {}
