/**
 * The one failure of the annotation file readers (XFDF, FDF), and how they raise it: the readers
 * are synchronous and deep (XML events, threading), so they throw and `readWith` turns what they
 * threw into a typed failure at their edge.
 */
import { Effect, Schema } from "effect"

/** An annotation file (XFDF or FDF) the broker cannot read: not the format, malformed, hostile or too large. */
export class AnnotationFileInvalid extends Schema.TaggedError<AnnotationFileInvalid>()(
  "AnnotationFileInvalid",
  { message: Schema.String }
) {}

/** Thrown inside the synchronous readers; turned into AnnotationFileInvalid at their edge. */
export class UnreadableAnnotationFile extends Error {}

export const unreadable = (message: string): never => {
  throw new UnreadableAnnotationFile(message)
}

/**
 * Runs a synchronous reader: its UnreadableAnnotationFile becomes AnnotationFileInvalid, anything
 * else it throws is a defect (a bug, not a bad file).
 */
export const readWith = <A>(read: () => A): Effect.Effect<A, AnnotationFileInvalid> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(read())
    } catch (error) {
      if (error instanceof UnreadableAnnotationFile) {
        return Effect.fail(new AnnotationFileInvalid({ message: error.message }))
      }
      throw error
    }
  })
