/**
 * What scripts/bench/main.ts gives every section: where the code to measure and the corpus are,
 * where to work and to write the report, the run's settings and the machine's facts.
 */
import type { WaitForQuiet } from "./quiet.ts"

/** The machine and the code measured, taken when a section starts (the head of every report). */
export interface MachineFacts {
  readonly date: string
  readonly nproc: number
  readonly cpuModel: string
  readonly totalMemoryMiB: number
  readonly node: string
  readonly mutool: string
  readonly pdftoppm: string
  readonly pdftotext: string
  readonly gitHead: string
  /** The commit measured when BENCH_REF is set (a clean copy); otherwise the working tree is. */
  readonly measuredRef: string | null
  /** Working-tree changes under src/ when the section started (measured only without BENCH_REF). */
  readonly srcChanges: ReadonlyArray<string>
  readonly loadAverageAtStart: ReadonlyArray<number>
}

export interface SectionOptions {
  /** The checkout whose code is measured: the working tree, or the BENCH_REF copy. */
  readonly codeRoot: string
  /** test/corpus of the working tree (whatever BENCH_REF is). */
  readonly corpus: string
  /** The section's own bench/tmp/<run>-<section>/ directory. */
  readonly tmp: string
  /** Where the report goes: bench/results/, or bench/tmp/smoke-results/ for a smoke run. */
  readonly outDir: string
  /** BENCH_RUNS: runs per median. */
  readonly runs: number
  readonly machine: MachineFacts
  readonly log: (message: string) => void
  /** The run's quiet wait, its budget shared by the sections (the office section has one of its own). */
  readonly waitForQuiet: WaitForQuiet
}
