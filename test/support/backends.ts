/**
 * The storage backends a suite runs on: PGlite always, PostgreSQL too when DATABASE_URL is set (CI).
 */
export const backends: ReadonlyArray<{ readonly name: string; readonly config: Readonly<Record<string, string>> }> = [
  { name: "PGlite", config: {} },
  ...(process.env.DATABASE_URL ? [{ name: "PostgreSQL", config: { DATABASE_URL: process.env.DATABASE_URL } }] : [])
]

/** The backend for suites that are not about storage: the one CI names, else PGlite. */
export const defaultBackend = backends[backends.length - 1]!

/** The real documents of the tests and benchmarks (test/corpus/MANIFEST.tsv says where each comes from). */
export const CORPUS = new URL("../corpus/", import.meta.url).pathname
