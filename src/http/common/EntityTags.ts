/**
 * Conditional GET (RFC 9110, 13.1.2): whether a client's If-None-Match names the representation it
 * would get, so that the answer is 304 without a body. The comparison is weak, as the RFC asks for
 * If-None-Match: `W/"x"` matches `"x"`; `*` matches any representation there is.
 */
const ENTITY_TAG = /(?:W\/)?("[^"]*")/g

export const holdsCurrent = (ifNoneMatch: string | undefined, etag: string) => {
  if (ifNoneMatch === undefined) return false
  if (ifNoneMatch.trim() === "*") return true
  return [...ifNoneMatch.matchAll(ENTITY_TAG)].some((match) => match[1] === etag)
}
