/**
 * Encryption at rest for secrets the gateway stores (LLM API keys): AES-256-GCM under a master key
 * from GATEWAY_MASTER_KEY (any passphrase; a key is derived with scrypt). Without one, a random
 * key is made once and kept in DATA_DIR/gateway-master.key (mode 0600), so a fresh `npm start`
 * works and keys survive restarts; production sets GATEWAY_MASTER_KEY.
 */
import { Config, Effect, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { StorageConfig } from "../../common/StorageConfig.ts"

const VERSION = "v1"

export class Secrets extends Effect.Service<Secrets>()("gateway/Secrets", {
  effect: Effect.gen(function*() {
    const configured = yield* Config.option(Config.redacted("GATEWAY_MASTER_KEY"))
    const { dataDir } = yield* StorageConfig
    const passphrase = Option.match(configured, {
      onSome: Redacted.value,
      onNone: () => {
        const file = path.join(dataDir, "gateway-master.key")
        if (!existsSync(file)) {
          mkdirSync(dataDir, { recursive: true })
          writeFileSync(file, randomBytes(32).toString("base64"), { mode: 0o600, flag: "wx" })
        }
        return readFileSync(file, "utf8").trim()
      }
    })
    const key = scryptSync(passphrase, "docstack-gateway-secrets", 32)

    return {
      /** `v1:<iv>:<tag>:<ciphertext>`, base64 parts. */
      encrypt: Effect.fn("Secrets.encrypt")((plain: string) =>
        Effect.sync(() => {
          const iv = randomBytes(12)
          const cipher = createCipheriv("aes-256-gcm", key, iv)
          const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
          return [VERSION, iv.toString("base64"), cipher.getAuthTag().toString("base64"), data.toString("base64")].join(
            ":"
          )
        })
      ),
      decrypt: Effect.fn("Secrets.decrypt")((sealed: string) =>
        Effect.try({
          try: () => {
            const [version, iv, tag, data] = sealed.split(":")
            if (version !== VERSION || !iv || !tag || data === undefined) throw new Error("unknown format")
            const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"))
            decipher.setAuthTag(Buffer.from(tag, "base64"))
            return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8")
          },
          catch: () =>
            new Error(
              "A stored API key cannot be decrypted: GATEWAY_MASTER_KEY differs from the one it was stored with"
            )
        })
      )
    }
  })
}) {}
