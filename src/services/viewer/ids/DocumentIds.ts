/**
 * The document IDs the viewer gives out, chosen by VIEWER_DOCUMENT_ID_GENERATOR:
 * - `documentIdGenerator` (default): the broker's ID itself (`b64_…`);
 * - `encryptedDocumentIdGenerator`: `b64_` and the broker's ID sealed with AES-256-GCM under
 *   VIEWER_DOCUMENT_ID_KEY, with the time it was issued, so that an ID cannot be guessed or forged
 *   and is refused after VIEWER_DOCUMENT_ID_TTL when one is set.
 * A part keeps its suffix in clear after the sealed root (`<sealed>/1/2`, in URLs `<sealed>@1@2`),
 * so that the parts a layout lists need no sealing of their own (docs/viewer.md "Document IDs").
 */
import { Config, type ConfigError, Duration, Effect, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { DocumentNotFound, InvalidRequest } from "../../../schemas/broker/Document.ts"
import { durationConfig } from "../../common/DurationConfig.ts"

const PREFIX = "b64_"
const IV_BYTES = 12
const TAG_BYTES = 16

/** `<root>` and its part suffix (`/1/2`, '' for a whole document), '@' read as '/'. */
const splitId = (id: string) => {
  const normal = id.replaceAll("@", "/")
  const slash = normal.indexOf("/")
  return slash < 0 ? { root: normal, suffix: "" } : { root: normal.slice(0, slash), suffix: normal.slice(slash) }
}

const settings = Config.all({
  generator: Config.literal("documentIdGenerator", "encryptedDocumentIdGenerator")("VIEWER_DOCUMENT_ID_GENERATOR").pipe(
    Config.withDefault("documentIdGenerator" as const)
  ),
  key: Config.option(Config.redacted("VIEWER_DOCUMENT_ID_KEY")),
  ttl: durationConfig("VIEWER_DOCUMENT_ID_TTL", Duration.infinity)
})

/** What both generators do. */
export interface DocumentIdCodec {
  readonly generator: "documentIdGenerator" | "encryptedDocumentIdGenerator"
  /** The ID the browser is given for a broker document. */
  readonly encode: (brokerId: string) => string
  /** The broker's ID behind a viewer ID: 400 when it is none of ours, 404 when it has expired. */
  readonly decode: (viewerId: string) => Effect.Effect<string, InvalidRequest | DocumentNotFound>
}

export class DocumentIds extends Effect.Service<DocumentIds>()("docstack/viewer/DocumentIds", {
  effect: Effect.gen(function*(): Effect.fn.Return<DocumentIdCodec, ConfigError.ConfigError> {
    const { generator, key, ttl } = yield* settings
    const malformed = (id: string) => new InvalidRequest({ message: `'${id}' is not a document ID of this viewer` })

    if (generator === "documentIdGenerator") {
      return {
        generator,
        encode: (brokerId: string) => brokerId,
        decode: (viewerId: string) =>
          /[\u0000-\u001f\u007f]/.test(viewerId)
            ? Effect.fail(malformed(viewerId))
            : Effect.succeed(viewerId.replaceAll("@", "/"))
      }
    }

    if (Option.isNone(key) || Redacted.value(key.value).length < 16) {
      return yield* Effect.dieMessage(
        "VIEWER_DOCUMENT_ID_GENERATOR=encryptedDocumentIdGenerator needs VIEWER_DOCUMENT_ID_KEY: a secret of at least 16 characters (32 random ones are best), the same on every viewer instance"
      )
    }
    // Any secret text becomes the 32 bytes AES-256 needs.
    const secret = createHash("sha256").update(Redacted.value(key.value)).digest()
    const ttlMillis = Duration.toMillis(ttl)

    const seal = (root: string) => {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv("aes-256-gcm", secret, iv)
      const issued = Buffer.alloc(6)
      issued.writeUIntBE(Math.floor(Date.now() / 1000), 0, 6)
      const body = Buffer.concat([cipher.update(Buffer.concat([issued, Buffer.from(root, "utf8")])), cipher.final()])
      return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")
    }

    const open = (viewerId: string, sealed: string): Effect.Effect<string, InvalidRequest | DocumentNotFound> => {
      const bytes = Buffer.from(sealed.slice(PREFIX.length), "base64url")
      if (!sealed.startsWith(PREFIX) || bytes.length < IV_BYTES + TAG_BYTES + 6) return Effect.fail(malformed(viewerId))
      try {
        const decipher = createDecipheriv("aes-256-gcm", secret, bytes.subarray(0, IV_BYTES))
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
        const plain = Buffer.concat([
          decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
          decipher.final()
        ])
        const issuedSeconds = plain.readUIntBE(0, 6)
        if (Date.now() - issuedSeconds * 1000 > ttlMillis) {
          return Effect.fail(
            new DocumentNotFound({
              documentId: viewerId,
              message: `The document ID '${viewerId}' has expired (VIEWER_DOCUMENT_ID_TTL): open the document again`
            })
          )
        }
        return Effect.succeed(plain.subarray(6).toString("utf8"))
      } catch {
        // Forged, damaged, or sealed under another key.
        return Effect.fail(malformed(viewerId))
      }
    }

    return {
      generator,
      encode: (brokerId: string) => {
        const { root, suffix } = splitId(brokerId)
        return seal(root) + suffix
      },
      decode: (viewerId: string): Effect.Effect<string, InvalidRequest | DocumentNotFound> => {
        const { root, suffix } = splitId(viewerId)
        return Effect.map(open(viewerId, root), (brokerRoot) => brokerRoot + suffix)
      }
    }
  })
}) {}
