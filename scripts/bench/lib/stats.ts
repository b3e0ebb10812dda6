/**
 * Small statistics over timings in milliseconds.
 */

export interface Summary {
  readonly n: number
  readonly min: number
  readonly median: number
  readonly p90: number
  readonly max: number
  readonly mean: number
}

const sorted = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)

/** Linear-interpolated percentile, p in [0, 100]. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const s = sorted(values)
  const rank = (p / 100) * (s.length - 1)
  const lo = Math.floor(rank)
  const hi = Math.ceil(rank)
  return s[lo]! + (s[hi]! - s[lo]!) * (rank - lo)
}

export const median = (values: ReadonlyArray<number>) => percentile(values, 50)

export const summarize = (values: ReadonlyArray<number>): Summary => ({
  n: values.length,
  min: values.length ? Math.min(...values) : Number.NaN,
  median: median(values),
  p90: percentile(values, 90),
  max: values.length ? Math.max(...values) : Number.NaN,
  mean: values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN
})

/** Rounds for display and JSON: 1 decimal below 100, integers above. */
export const round = (value: number, digits?: number) => {
  if (!Number.isFinite(value)) return value
  const d = digits ?? (Math.abs(value) < 100 ? 1 : 0)
  const f = 10 ** d
  return Math.round(value * f) / f
}

export const ms = (value: number) => (Number.isFinite(value) ? `${round(value)} ms` : "n/a")

export const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.NaN)

export const fmtRatio = (value: number) => (Number.isFinite(value) ? `${round(value, 2).toFixed(2)}×` : "n/a")

export const mib = (kib: number) => (Number.isFinite(kib) ? `${Math.round(kib / 1024)} MiB` : "n/a")
