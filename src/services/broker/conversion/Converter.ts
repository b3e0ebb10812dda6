/**
 * Any viewable file to the PDF its pages come from: PDFs as they are, images by ImageToPdf, office
 * files, text and HTML by the LibreOffice pool, XPS and EPUB by MuPDF (`mutool convert`, which
 * LibreOffice cannot read). The result is stored in the blob store.
 */
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Config, Data, Duration, Effect, Stream } from "effect"
import { BlobStore } from "../../common/BlobStore.ts"
import { durationConfig } from "../../common/DurationConfig.ts"
import type { DetectedFormat } from "./FormatDetector.ts"
import { ImageRejected, imageToPdf } from "./ImageToPdf.ts"
import { OFFICE_FORMATS, OfficeConverter, type OfficeFormat } from "./OfficeConverter.ts"
import { decodeText, toUtf8Html } from "./TextEncoding.ts"

/** The file cannot become a PDF; `message` is for the person who sent it. */
export class ConversionFailed extends Data.TaggedError("ConversionFailed")<{ readonly message: string }> {}

export interface ConvertedPdf {
  readonly hash: string
  /** Resolution of each page when the source had one (images); 72 otherwise. */
  readonly dpis: ReadonlyArray<number>
}

export const ConverterConfig = Config.all({
  maxSourceImagePixels: Config.integer("MAX_SOURCE_IMAGE_PIXELS").pipe(Config.withDefault(200_000_000)),
  mupdfTimeout: durationConfig("MUPDF_CONVERSION_TIMEOUT", Duration.seconds(120)),
  /** The PDF written by a converter may not exceed this (a converter can inflate a small file a lot). */
  maxRenditionBytes: Config.integer("MAX_RENDITION_BYTES").pipe(Config.withDefault(2 * 1024 * 1024 * 1024))
})

/** Whether a detected file becomes pages through `toPdf` (composites and unknown files do not). */
export const isConvertible = (detected: DetectedFormat | undefined): boolean =>
  detected !== undefined && (detected.kind === "pdf" || detected.kind === "image" || detected.kind === "mupdf" ||
    (detected.kind === "office" && detected.format in OFFICE_FORMATS))

export class Converter extends Effect.Service<Converter>()("docstack/Converter", {
  effect: Effect.gen(function*() {
    const config = yield* ConverterConfig
    const blobs = yield* BlobStore
    const office = yield* OfficeConverter
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const executor = yield* CommandExecutor.CommandExecutor

    const storePdf = (file: string) =>
      blobs.put(fs.stream(file), config.maxRenditionBytes).pipe(
        Effect.catchTags({
          BlobTooLarge: (e) =>
            Effect.fail(
              new ConversionFailed({
                message: `The converted PDF is larger than ${e.limitBytes} bytes (MAX_RENDITION_BYTES)`
              })
            )
        }),
        Effect.orDie
      )

    /** Office formats through LibreOffice; text and HTML are handed over as UTF-8 whatever they came in. */
    const viaOffice = (source: string, format: OfficeFormat, work: string) =>
      Effect.gen(function*() {
        let input = source
        if (format === "text" || format === "html") {
          const bytes = yield* fs.readFile(source).pipe(Effect.orDie)
          input = path.join(work, format === "text" ? "input.txt" : "input.html")
          yield* fs.writeFileString(input, format === "text" ? decodeText(bytes).text : toUtf8Html(bytes)).pipe(
            Effect.orDie
          )
        }
        const output = path.join(work, "output.pdf")
        yield* office.convert({ path: input, format }, output).pipe(
          Effect.mapError((e) => new ConversionFailed({ message: e.message }))
        )
        return yield* storePdf(output)
      })

    /** MuPDF tells the format by the file name, so the blob is linked under one with the right extension. */
    const viaMupdf = (source: string, format: string, work: string) =>
      Effect.gen(function*() {
        const input = path.join(work, `input.${format}`)
        const output = path.join(work, "output.pdf")
        yield* fs.symlink(source, input).pipe(Effect.orDie)
        const [exitCode, stderr] = yield* Effect.scoped(
          Command.start(Command.make("mutool", "convert", "-F", "pdf", "-o", output, input)).pipe(
            Effect.flatMap((process) =>
              Effect.all([process.exitCode, process.stderr.pipe(Stream.decodeText(), Stream.mkString)], {
                concurrency: 2
              })
            )
          )
        ).pipe(
          Effect.timeoutFail({
            duration: config.mupdfTimeout,
            onTimeout: () =>
              new ConversionFailed({
                message: `The conversion took longer than ${
                  Duration.format(config.mupdfTimeout)
                } (MUPDF_CONVERSION_TIMEOUT) and was stopped`
              })
          }),
          Effect.catchTag("SystemError", "BadArgument", (e) =>
            Effect.fail(new ConversionFailed({ message: `mutool could not be started: ${e.message}` }))),
          Effect.provideService(CommandExecutor.CommandExecutor, executor)
        )
        if (exitCode !== 0 || !(yield* fs.exists(output).pipe(Effect.orDie))) {
          const reason = stderr.split("\n").find((line) =>
            line.startsWith("error:")
          )?.slice(6).trim() ?? `exit code ${exitCode}`
          return yield* new ConversionFailed({ message: `The ${format.toUpperCase()} file cannot be read: ${reason}` })
        }
        return yield* storePdf(output)
      })

    return {
      toPdf: Effect.fn("Converter.toPdf")(function*(sourceHash: string, detected: DetectedFormat) {
        if (detected.kind === "pdf") return { hash: sourceHash, dpis: [] } satisfies ConvertedPdf
        if (detected.kind === "image") {
          const bytes = yield* blobs.read(sourceHash).pipe(Effect.orDie)
          const converted = yield* Effect.tryPromise({
            try: () => imageToPdf(bytes, detected.format, { maxPixels: config.maxSourceImagePixels }),
            catch: (error) =>
              new ConversionFailed({
                message: error instanceof ImageRejected
                  ? error.message
                  : `The ${detected.format.toUpperCase()} image cannot be converted: ${String(error)}`
              })
          })
          const stored = yield* blobs.putBytes(converted.pdf).pipe(Effect.orDie)
          return { hash: stored.hash, dpis: converted.dpis } satisfies ConvertedPdf
        }
        if (!isConvertible(detected)) {
          return yield* new ConversionFailed({ message: `A ${detected.format} file cannot be converted to PDF` })
        }
        const source = yield* blobs.localPath(sourceHash).pipe(Effect.orDie)
        return yield* Effect.scoped(
          fs.makeTempDirectoryScoped({ prefix: "docstack-convert-" }).pipe(
            Effect.orDie,
            Effect.flatMap((work) =>
              detected.kind === "mupdf"
                ? viaMupdf(source, detected.format, work)
                : viaOffice(source, detected.format as OfficeFormat, work)
            ),
            Effect.map((stored): ConvertedPdf => ({ hash: stored.hash, dpis: [] }))
          )
        )
      })
    }
  }),
  dependencies: [OfficeConverter.Default]
}) {}
