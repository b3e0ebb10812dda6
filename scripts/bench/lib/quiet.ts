/**
 * Waiting for a quiet machine before a measurement: on a shared machine, other work would
 * otherwise land on one side of a comparison. One waiter holds one budget for all its waits, so a
 * busy machine delays a run by at most that much (BENCH_QUIET_BUDGET, bench/README.md); when it is
 * spent the measurement runs anyway and its record says how busy the machine was.
 */
import { otherProcessesCores } from "./proc.ts"

/** Below this many cores kept busy by other processes the machine counts as quiet. */
export const QUIET_CORES = 0.3

/** One wait, as the reports list it. */
export interface QuietWait {
  readonly before: string
  readonly waitedMs: number
  /** Cores other processes kept busy at the end of the wait. */
  readonly otherCores: number
}

/**
 * Waits before `before` until processes other than the benchmark (its reference tools included)
 * and the service tree rooted at `excludeRoot` keep fewer than QUIET_CORES busy.
 */
export type WaitForQuiet = (before: string, excludeRoot: number | undefined) => Promise<QuietWait>

export const quietWaiter = (budgetMs: number, log: (message: string) => void): WaitForQuiet => {
  let leftMs = budgetMs
  return async (before, excludeRoot) => {
    const started = performance.now()
    let other = await otherProcessesCores(excludeRoot, 2_000)
    let announced = false
    while (other >= QUIET_CORES && performance.now() - started < leftMs) {
      if (!announced) log(`waiting for other processes to calm down before ${before} (${other.toFixed(2)} cores busy)`)
      announced = true
      other = await otherProcessesCores(excludeRoot, 2_000)
    }
    const waitedMs = performance.now() - started
    leftMs = Math.max(0, leftMs - waitedMs)
    if (other >= QUIET_CORES) {
      log(`quiet-wait budget spent: ${before} runs while other processes keep ${other.toFixed(2)} cores busy`)
    }
    return { before, waitedMs, otherCores: other }
  }
}
