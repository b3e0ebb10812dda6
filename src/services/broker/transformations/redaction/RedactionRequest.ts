/**
 * What a redaction is asked for and how it fails: shared by the public entry (../Redaction.ts) and
 * both passes, which would otherwise import it back from there.
 */
import { Schema } from "effect"

/** A region to redact: 0-based page index and a rectangle in PDF user space [x1, y1, x2, y2] (points, origin bottom-left of the unrotated page, y up, x1<=x2, y1<=y2). */
export interface RedactionRegion {
  readonly page: number
  readonly rect: readonly [number, number, number, number]
}

export interface RedactionSettings {
  /** RGB 0-1 of the box drawn where content was removed (default black [0,0,0]); null draws nothing. */
  readonly fill?: readonly [number, number, number] | null
  /** Longest the work may take (default 120 s). */
  readonly timeoutMs?: number
}

/** The colour of the boxes drawn over the regions; null draws none. */
export type Fill = readonly [number, number, number] | null

/** The PDF cannot be redacted as asked (unreadable or protected file, bad region, timeout); `message` says which. */
export class RedactionFailed extends Schema.TaggedError<RedactionFailed>()(
  "RedactionFailed",
  { message: Schema.String }
) {}
