/**
 * The one place that decides what a string may hold before it reaches PostgreSQL (PGlite and
 * PostgreSQL alike). Text from outside (titles, metadata, annotation fields, conversation titles,
 * questions, prompts, provider messages) may carry two things PostgreSQL refuses:
 *
 * - NUL (U+0000): `text` refuses the byte and `jsonb` refuses the `\u0000` escape; it is removed.
 * - an unpaired UTF-16 surrogate: not a character at all; `jsonb` refuses its escape and UTF-8 has
 *   no encoding for it. It becomes U+FFFD (the replacement character), as `String.toWellFormed` does.
 * - a byte order mark (U+FEFF) at the start: an encoding signature, not text. The embedded
 *   database's reader (PGlite decodes every field with a BOM-stripping TextDecoder) drops it from a
 *   text column; it is dropped here so that both backends keep the same text.
 *
 * Every statement's parameters pass through here (`storableConnection` wraps the connection of both
 * SQL backends), so no field needs its own guard. JSON written into a column goes as `sqlJson(value)`:
 * its strings (and keys) are cleaned before it is serialized, since once serialized a NUL is six
 * characters of escape that only `jsonb` refuses. See docs/storage.md ("What text may hold").
 */
import type { Connection } from "@effect/sql/SqlConnection"

/** `text` as PostgreSQL can keep it: NUL removed, unpaired surrogates replaced by U+FFFD, no leading BOM. */
export const storableText = (text: string): string => {
  const withoutNul = text.includes("\u0000") ? text.replaceAll("\u0000", "") : text
  const wellFormed = withoutNul.isWellFormed() ? withoutNul : withoutNul.toWellFormed()
  return wellFormed.charCodeAt(0) === 0xfeff ? wellFormed.replace(/^\ufeff+/, "") : wellFormed
}

/**
 * Applied by JSON.stringify to every value it writes (after `toJSON`, so class instances too):
 * strings made storable, and an object whose keys need it copied with storable keys.
 */
const storableJsonValue = (_key: string, value: unknown): unknown => {
  if (typeof value === "string") return storableText(value)
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value
  const keys = Object.keys(value)
  if (keys.every((key) => storableText(key) === key)) return value
  return Object.fromEntries(keys.map((key) => [storableText(key), (value as Record<string, unknown>)[key]]))
}

/** `value` as JSON text with every string in it (keys too) storable. */
export const storableJson = (value: unknown): string => JSON.stringify(value, storableJsonValue)

/** A value to be written as JSON text (into a `jsonb` or `text` column): see `sqlJson`. */
export class SqlJson {
  constructor(readonly value: unknown) {}
}

/** `value` as a statement parameter holding its JSON, with every string in it storable. */
export const sqlJson = (value: unknown) => new SqlJson(value)

/** A parameter as the database can keep it: text cleaned, JSON serialized clean, arrays element by element. */
const storableParam = (param: unknown): unknown =>
  typeof param === "string"
    ? storableText(param)
    : param instanceof SqlJson
    ? storableJson(param.value)
    : Array.isArray(param)
    ? param.map(storableParam)
    : param

/** A statement's parameters as the database can keep them. */
export const storableParams = (params: ReadonlyArray<unknown>): ReadonlyArray<unknown> => params.map(storableParam)

/** `connection` with every statement's parameters made storable first. */
export const storableConnection = (connection: Connection): Connection => ({
  execute: (sql, params, transformRows) => connection.execute(sql, storableParams(params), transformRows),
  executeRaw: (sql, params) => connection.executeRaw(sql, storableParams(params)),
  executeValues: (sql, params) => connection.executeValues(sql, storableParams(params)),
  executeUnprepared: (sql, params, transformRows) =>
    connection.executeUnprepared(sql, storableParams(params), transformRows),
  executeStream: (sql, params, transformRows) => connection.executeStream(sql, storableParams(params), transformRows)
})
