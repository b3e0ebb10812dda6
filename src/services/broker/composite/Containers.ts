/**
 * Composite files (emails, ZIP archives, providers' folders) as the parts they hold. An expansion is derived from the
 * bytes, like a rendition: done once per content, with every part stored as a blob and recognised,
 * so that a part can then be treated as any document (and converted when first opened).
 */
import { Data, Effect, Option, Schema } from "effect"
import { BlobStore } from "../../common/BlobStore.ts"
import { type DetectedFormat, detectFile } from "../conversion/FormatDetector.ts"
import { PdfEngine } from "../engine/PdfEngine.ts"
import { DocumentRegistry } from "../registry/DocumentRegistry.ts"
import { type EmailRejected, expandEmail } from "./Email.ts"
import { fileEntries, PartEntry } from "./Parts.ts"
import { expandFolder, type FolderRejected } from "./ProviderFolders.ts"
import { type ArchiveRejected, expandZip } from "./Zip.ts"

/** The composite file cannot be opened (corrupt, encrypted, over a limit); `message` says which. */
export class ExpansionRejected extends Data.TaggedError("ExpansionRejected")<{ readonly message: string }> {}

const StoredFormat = Schema.Struct({
  format: Schema.String,
  mimeType: Schema.String,
  kind: Schema.Literal("pdf", "image", "office", "mupdf", "email", "zip", "folder", "protected")
})

/** What is stored per composite file: its parts, and what each part's bytes were recognised as. */
export class Expansion extends Schema.Class<Expansion>("Expansion")({
  parts: Schema.Array(PartEntry),
  formats: Schema.Record({ key: Schema.String, value: Schema.NullOr(StoredFormat) })
}) {
  formatOf(hash: string): DetectedFormat | undefined {
    return this.formats[hash] ?? undefined
  }
}

/** How an attached email is shown (spec: listed as message/rfc822, resolved as a text/plain page layout). */
const ATTACHED_EMAIL: DetectedFormat = { format: "text", mimeType: "text/plain", kind: "office" }

export const isComposite = (detected: DetectedFormat | undefined) =>
  detected?.kind === "email" || detected?.kind === "zip" || detected?.kind === "folder"

export class Containers extends Effect.Service<Containers>()("docstack/Containers", {
  effect: Effect.gen(function*() {
    const registry = yield* DocumentRegistry
    const blobs = yield* BlobStore
    const engine = yield* PdfEngine
    const decode = Schema.decodeUnknown(Schema.Union(Expansion, Schema.Struct({ rejected: Schema.String })))

    const expand = (sourceHash: string, detected: DetectedFormat) =>
      Effect.gen(function*() {
        const path = yield* blobs.localPath(sourceHash).pipe(Effect.orDie)
        const expanded: Effect.Effect<
          ReadonlyArray<PartEntry>,
          ArchiveRejected | EmailRejected | FolderRejected,
          BlobStore | PdfEngine
        > = detected.kind === "zip"
          ? expandZip(path)
          : detected.kind === "folder"
          ? expandFolder(path)
          : expandEmail(path, detected.format === "msg" ? "msg" : "eml")
        const parts = yield* expanded.pipe(
          Effect.mapError((e) => new ExpansionRejected({ message: e.message })),
          Effect.provideService(BlobStore, blobs),
          Effect.provideService(PdfEngine, engine)
        )
        const files = fileEntries(parts)
        const formats: Record<string, DetectedFormat | null> = {}
        for (const file of files) {
          if (file.hash in formats) continue
          // An email attached to an email is stored as its text rendering, which looks like an email again.
          if (detected.kind === "email" && file.mimeType === "message/rfc822") {
            formats[file.hash] = ATTACHED_EMAIL
            continue
          }
          const filePath = yield* blobs.localPath(file.hash).pipe(Effect.orDie)
          formats[file.hash] = (yield* detectFile(filePath, file.name)) ?? null
        }
        const expansion = new Expansion({ parts, formats })
        yield* registry.saveExpansion(
          sourceHash,
          yield* Schema.encode(Expansion)(expansion).pipe(Effect.orDie),
          files.map((f) => f.hash)
        )
        return expansion
      })

    return {
      /**
       * The parts of a composite file, expanding it on first use. A refusal is remembered too, so
       * that a bad archive inside another is not expanded again on every request.
       */
      expansion: Effect.fn("Containers.expansion")(function*(sourceHash: string, detected: DetectedFormat) {
        const stored = yield* registry.expansion(sourceHash)
        if (Option.isSome(stored)) {
          const decoded = yield* decode(stored.value).pipe(Effect.option)
          if (Option.isSome(decoded)) {
            const value = decoded.value
            return yield* ("rejected" in value
              ? Effect.fail(new ExpansionRejected({ message: value.rejected }))
              : Effect.succeed(value))
          }
        }
        return yield* expand(sourceHash, detected).pipe(
          Effect.tapError((rejected) => registry.saveExpansion(sourceHash, { rejected: rejected.message }, []))
        )
      })
    }
  }),
  dependencies: [DocumentRegistry.Default, PdfEngine.Default]
}) {}
