/**
 * Debian's Chromium, headless, driven by playwright-core (no browser download).
 */
import { Effect } from "effect"
import { chromium } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

/** How Chromium is started for tests and benchmarks: headless, quiet. */
export const CHROMIUM_LAUNCH = {
  executablePath: CHROMIUM,
  headless: true,
  // Background networking would try hosts this machine cannot reach.
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync"
  ]
}

/** A fresh browser (playwright gives it an empty profile) for the scope; closed with it. */
export const browser = Effect.acquireRelease(
  Effect.promise(() => chromium.launch(CHROMIUM_LAUNCH)),
  (b) => Effect.promise(() => b.close())
)
