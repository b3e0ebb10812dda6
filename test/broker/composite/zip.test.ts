/**
 * ZIP archives as composite documents: the numbering of parts (flat, depth-first, folders taking an
 * index), the bytes stored for each entry, and the limits that refuse an archive without leaving
 * blobs behind. Against the real file-system BlobStore in a fresh data directory.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Layer, Schema } from "effect"
import { strToU8, unzipSync, zipSync } from "fflate"
import { execFileSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { type PartEntry, PartsFromJson } from "../../../src/services/broker/composite/Parts.ts"
import { expandZip } from "../../../src/services/broker/composite/Zip.ts"
import { BlobStore } from "../../../src/services/common/BlobStore.ts"
import { StorageConfig } from "../../../src/services/common/StorageConfig.ts"
import { CORPUS } from "../../support/backends.ts"

const OFFICE = path.join(CORPUS, "office")
const dataDir = mkdtempSync(path.join(tmpdir(), "docstack-zip-"))
const scratch = mkdtempSync(path.join(tmpdir(), "docstack-zip-files-"))

const BlobsLive = BlobStore.FileSystemLive.pipe(
  Layer.provide(StorageConfig.Default),
  Layer.provide(NodeContext.layer),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", dataDir]]))))
)

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))

/** The blobs in the store, by name (temporary files under incoming/ included, so leftovers show). */
const storedBlobs = (): ReadonlyArray<string> => {
  const root = path.join(dataDir, "blobs")
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) =>
    path.join(entry.parentPath, entry.name)
  ).sort()
}

/** An entry's bytes as `unzip -p` gives them (fflate where unzip is not installed). */
const reference = (zip: string, name: string): Uint8Array => {
  try {
    return new Uint8Array(execFileSync("unzip", ["-p", zip, name]))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
    return unzipSync(readFileSync(zip))[name]!
  }
}

const write = (name: string, bytes: Uint8Array) => {
  const file = path.join(scratch, name)
  writeFileSync(file, bytes)
  return file
}

const withConfig = (settings: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))

/** The tree without hashes and sizes, to compare shapes. */
const shape = (parts: ReadonlyArray<PartEntry>): ReadonlyArray<unknown> =>
  parts.map((
    part
  ) => (part.kind === "folder" ? [part.index, part.name, shape(part.children)] : [part.index, part.name]))

/** Expands, expecting a refusal; returns its message. */
const rejection = (file: string) =>
  expandZip(file).pipe(
    Effect.either,
    Effect.map((result) => {
      expect(Either.isLeft(result)).toBe(true)
      const error = Either.isLeft(result) ? result.left : undefined
      expect(error?._tag).toBe("ArchiveRejected")
      return error?.message ?? ""
    })
  )

layer(BlobsLive)("expandZip", (it) => {
  describe("the corpus archives", () => {
    it.effect("all.windows.zip: Hello.txt, then the implicit folder images holding smile.gif", () =>
      Effect.gen(function*() {
        const zip = path.join(OFFICE, "all.windows.zip")
        const parts = yield* expandZip(zip)
        const hello = reference(zip, "Hello.txt")
        const smile = reference(zip, "images/smile.gif")
        expect(parts).toEqual([
          { kind: "file", index: 1, name: "Hello.txt", mimeType: null, hash: sha256(hello), size: hello.length },
          {
            kind: "folder",
            index: 2,
            name: "images",
            children: [{
              kind: "file",
              index: 3,
              name: "smile.gif",
              mimeType: null,
              hash: sha256(smile),
              size: smile.length
            }]
          }
        ])
        const blobs = yield* BlobStore
        expect(same(yield* blobs.read(sha256(hello)), hello)).toBe(true)
        expect(same(yield* blobs.read(sha256(smile)), smile)).toBe(true)
      }))

    it.effect("nested.zip: the inner archive is a part, expanded only when opened in turn", () =>
      Effect.gen(function*() {
        const zip = path.join(OFFICE, "nested.zip")
        const parts = yield* expandZip(zip)
        const hello = reference(zip, "Hello.txt")
        const inner = reference(zip, "zip_within_zip.zip")
        expect(parts).toEqual([
          { kind: "file", index: 1, name: "Hello.txt", mimeType: null, hash: sha256(hello), size: hello.length },
          {
            kind: "file",
            index: 2,
            name: "zip_within_zip.zip",
            mimeType: null,
            hash: sha256(inner),
            size: inner.length
          }
        ])
        const blobs = yield* BlobStore
        expect(same(yield* blobs.read(sha256(inner)), inner)).toBe(true)
        const innerParts = yield* expandZip(yield* Effect.orDie(blobs.localPath(sha256(inner))))
        expect(shape(innerParts)).toEqual([[1, "Hello.txt"]])
      }))
  })

  describe("numbering", () => {
    it.effect("folders, explicit or implied, take the next index and hold what follows; junk is skipped; names are titles", () =>
      Effect.gen(function*() {
        const inner = zipSync({ "inside.txt": strToU8("inside") })
        const evil = randomBytes(32)
        const file = write(
          "tree.zip",
          zipSync({
            "docs/": new Uint8Array(),
            "docs/a.txt": strToU8("a"),
            "docs/sub/deeper/b.txt": strToU8("b"),
            "top.txt": strToU8("top"),
            "docs/c.txt": strToU8("c"),
            "empty/": new Uint8Array(),
            "inner.zip": inner,
            "__MACOSX/._top.txt": strToU8("resource fork"),
            "docs/.DS_Store": strToU8("finder"),
            "../../evil.txt": evil
          })
        )
        const parts = yield* expandZip(file)
        expect(shape(parts)).toEqual([
          [1, "docs", [[2, "a.txt"], [3, "sub", [[4, "deeper", [[5, "b.txt"]]]]], [6, "c.txt"]]],
          [7, "top.txt"],
          [8, "empty", []],
          [9, "inner.zip"],
          [10, "..", [[11, "..", [[12, "evil.txt"]]]]]
        ])
        // The "../../" name was stored as a blob like any other, nothing written beside the data directory.
        const blobs = yield* BlobStore
        expect(same(yield* blobs.read(sha256(evil)), evil)).toBe(true)
        expect(existsSync(path.join(scratch, "..", "evil.txt"))).toBe(false)
        const zipPart = parts.find((part) => part.name === "inner.zip")
        expect(zipPart?.kind === "file" && zipPart.hash).toBe(sha256(inner))
      }))

    it.effect("the tree survives its JSON form", () =>
      Effect.gen(function*() {
        const parts = yield* expandZip(path.join(OFFICE, "all.windows.zip"))
        const json = yield* Schema.encode(PartsFromJson)(parts)
        expect(yield* Schema.decodeUnknown(PartsFromJson)(json)).toEqual(parts)
        expect(
          Either.isLeft(
            Schema.decodeUnknownEither(PartsFromJson)(
              `[{"kind":"file","index":1,"name":"x","mimeType":null,"hash":"nothex","size":1}]`
            )
          )
        )
          .toBe(true)
      }))
  })

  describe("limits and refusals", () => {
    it.effect("more entries than ZIP_MAX_ENTRIES", () =>
      Effect.gen(function*() {
        const before = storedBlobs()
        const file = write(
          "many.zip",
          zipSync(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.txt`, randomBytes(16)])))
        )
        expect(yield* rejection(file).pipe(withConfig({ ZIP_MAX_ENTRIES: "3" }))).toMatch(/ZIP_MAX_ENTRIES/)
        expect(storedBlobs()).toEqual(before)
        expect(shape(yield* expandZip(file).pipe(withConfig({ ZIP_MAX_ENTRIES: "5" })))).toHaveLength(5)
      }))

    const bomb = () =>
      write(
        "bomb.zip",
        zipSync({ "first.txt": randomBytes(100_000), "zeros.bin": new Uint8Array(50 * 1024 * 1024) }, { level: 9 })
      )

    it.effect("a 50 MB entry of zeros over ZIP_MAX_RATIO, counted while decompressing, leaves no blob", () =>
      Effect.gen(function*() {
        const file = bomb()
        const before = storedBlobs()
        expect(yield* rejection(file).pipe(withConfig({ ZIP_MAX_RATIO: "20" }))).toMatch(/zeros\.bin.*ZIP_MAX_RATIO/)
        // first.txt had been stored before zeros.bin was refused: it is gone again.
        expect(storedBlobs()).toEqual(before)
        // The default ratio (200) refuses it too: zeros compress about a thousandfold.
        expect(yield* rejection(file)).toMatch(/ZIP_MAX_RATIO/)
        expect(storedBlobs()).toEqual(before)
      }))

    it.effect("more decompressed bytes than ZIP_MAX_TOTAL_BYTES, counted while decompressing, leaves no blob", () =>
      Effect.gen(function*() {
        const file = bomb()
        const before = storedBlobs()
        expect(
          yield* rejection(file).pipe(
            withConfig({ ZIP_MAX_TOTAL_BYTES: String(5 * 1024 * 1024), ZIP_MAX_RATIO: "100000" })
          )
        )
          .toMatch(/ZIP_MAX_TOTAL_BYTES/)
        expect(storedBlobs()).toEqual(before)
      }))

    it.effect("a declared size that lies does not get past the count", () =>
      Effect.gen(function*() {
        // Claim 10 bytes for an entry of 2 MB: the stream is cut at the real bytes, not trusted.
        const bytes = Buffer.from(zipSync({ "liar.bin": new Uint8Array(2 * 1024 * 1024) }, { level: 9 }))
        patchSizes(bytes, 10)
        const before = storedBlobs()
        expect(yield* rejection(write("liar.zip", bytes))).toMatch(/damaged.*too many bytes/)
        expect(storedBlobs()).toEqual(before)
      }))

    it.effect("folders deeper than ZIP_MAX_DEPTH", () =>
      Effect.gen(function*() {
        const file = write("deep.zip", zipSync({ "a/b/c/d/e.txt": strToU8("deep") }))
        expect(yield* rejection(file).pipe(withConfig({ ZIP_MAX_DEPTH: "3" }))).toMatch(/ZIP_MAX_DEPTH/)
        expect(shape(yield* expandZip(file).pipe(withConfig({ ZIP_MAX_DEPTH: "4" })))).toHaveLength(1)
      }))

    it.effect("an encrypted entry: password-protected, refused, nothing left", () =>
      Effect.gen(function*() {
        const bytes = Buffer.from(zipSync({ "open.txt": randomBytes(64), "secret.txt": randomBytes(64) }))
        setEncryptedFlag(bytes, "secret.txt")
        const before = storedBlobs()
        expect(yield* rejection(write("encrypted.zip", bytes))).toMatch(/password-protected.*secret\.txt/)
        expect(storedBlobs()).toEqual(before)
      }))

    it.effect("not a ZIP, or a damaged one", () =>
      Effect.gen(function*() {
        expect(yield* rejection(write("random.zip", randomBytes(4096)))).toMatch(/not a readable ZIP archive/)
        const whole = readFileSync(path.join(OFFICE, "nested.zip"))
        expect(yield* rejection(write("truncated.zip", whole.subarray(0, whole.length - 30)))).toMatch(/ZIP/)
      }))
  })
})

/** Walks the central directory of a ZIP written by fflate. */
const centralEntries = (bytes: Buffer) => {
  const eocd = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]))
  const count = bytes.readUInt16LE(eocd + 10)
  let at = bytes.readUInt32LE(eocd + 16)
  const entries: Array<{ readonly central: number; readonly local: number; readonly name: string }> = []
  for (let i = 0; i < count; i++) {
    const nameLength = bytes.readUInt16LE(at + 28)
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString("utf8")
    entries.push({ central: at, local: bytes.readUInt32LE(at + 42), name })
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32)
  }
  return entries
}

/** Sets general purpose bit 0 (encrypted) for one entry, in its local and central headers. */
const setEncryptedFlag = (bytes: Buffer, name: string) => {
  const entry = centralEntries(bytes).find((e) => e.name === name)!
  bytes.writeUInt16LE(bytes.readUInt16LE(entry.central + 8) | 1, entry.central + 8)
  bytes.writeUInt16LE(bytes.readUInt16LE(entry.local + 6) | 1, entry.local + 6)
}

/** Rewrites every entry's declared uncompressed size. */
const patchSizes = (bytes: Buffer, size: number) => {
  for (const entry of centralEntries(bytes)) {
    bytes.writeUInt32LE(size, entry.central + 24)
    bytes.writeUInt32LE(size, entry.local + 22)
  }
}
