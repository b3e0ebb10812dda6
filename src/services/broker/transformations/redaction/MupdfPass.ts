/**
 * The first pass: MuPDF (`mutool run` with MutoolScript.ts) removes the glyphs under each region and
 * replaces the covered pixels of images (and of their soft masks), copying forms and images other
 * pages still use. The work happens in a temporary directory removed when the pass ends.
 */
import * as Command from "@effect/platform/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Stream } from "effect"
import { inlineImagesToXObjects } from "./InlineImages.ts"
import { MUTOOL_SCRIPT } from "./MutoolScript.ts"
import { RedactionFailed, type RedactionRegion } from "./RedactionRequest.ts"

/** How MuPDF 1.21 fails on an inline image whose colour space is an array (an indexed palette): it cannot write it back. */
const INLINE_IMAGE_FAILURE = "BI operator can only show"

/** The PDF as MuPDF redacted it, decrypted; on an inline image MuPDF cannot write, redacted again with its inline images made XObjects. */
export const mupdfPass = (pdf: Uint8Array, regions: ReadonlyArray<RedactionRegion>) =>
  Effect.scoped(
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const work = yield* fs.makeTempDirectoryScoped({ prefix: "docstack-redact-" }).pipe(Effect.orDie)
      const file = (name: string) => path.join(work, name)
      yield* Effect.all([
        fs.writeFile(file("input.pdf"), pdf),
        fs.writeFileString(file("redact.js"), MUTOOL_SCRIPT),
        fs.writeFileString(file("regions.json"), JSON.stringify(regions))
      ]).pipe(Effect.orDie)
      const mutool = (input: string, output: string, mode: "redact" | "decrypt") =>
        Command.start(
          Command.make("mutool", "run", file("redact.js"), file(input), file(output), file("regions.json"), mode)
        ).pipe(
          Effect.flatMap((process) =>
            Effect.all([process.exitCode, process.stderr.pipe(Stream.decodeText(), Stream.mkString)], {
              concurrency: 2
            })
          ),
          Effect.catchTag(
            "SystemError",
            "BadArgument",
            (e) => Effect.fail(new RedactionFailed({ message: `mutool could not be started: ${e.message}` }))
          ),
          Effect.flatMap(([exitCode, stderr]) =>
            exitCode === 0
              ? Effect.void
              : Effect.fail(new RedactionFailed({ message: mutoolFailure(stderr, exitCode) }))
          )
        )
      yield* mutool("input.pdf", "output.pdf", "redact").pipe(
        Effect.catchIf((e) => e.message.includes(INLINE_IMAGE_FAILURE), () =>
          Effect.gen(function*() {
            yield* mutool("input.pdf", "plain.pdf", "decrypt")
            const plain = yield* fs.readFile(file("plain.pdf")).pipe(Effect.orDie)
            yield* fs.writeFile(file("converted.pdf"), yield* inlineImagesToXObjects(plain, regions)).pipe(Effect.orDie)
            yield* mutool("converted.pdf", "output.pdf", "redact")
          }))
      )
      return yield* fs.readFile(file("output.pdf")).pipe(Effect.orDie)
    })
  )

/**
 * The script's own refusals come as "Error: REDACTION: …"; any other "Error:" is the exception that
 * stopped MuPDF (its "error:" lines before are often warnings it recovered from).
 */
const mutoolFailure = (stderr: string, exitCode: number): string => {
  const own = /Error: REDACTION: (.*)/.exec(stderr)?.[1]
  if (own !== undefined) return own
  const reason = /^Error: (.*)$/m.exec(stderr)?.[1] ?? [...stderr.matchAll(/^error: (.*)$/gm)].pop()?.[1]
  return `The PDF cannot be read: ${reason ?? `mutool exited with code ${exitCode}`}`
}
