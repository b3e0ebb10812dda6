/**
 * Work the broker does as an order (applying redactions, making a document from pages, comparing
 * images): started, followed until it ends, and shown to the reader meanwhile in a small dialog with
 * its state and time, which can cancel it. The order is polled with a long wait, so its end is seen
 * at once without a request a second.
 */
import { html, nothing } from "lit"
import type { OrderHandle, OrderStatus, ViewerClient } from "../client/ViewerClient.ts"
import type { Translate } from "../i18n/messages.ts"

/** How long one poll asks the service to wait for the order's end. */
const WAIT_MS = 2_000

export type OrderView =
  | { readonly phase: "running"; readonly title: string; readonly status: OrderStatus | null; readonly started: number }
  | { readonly phase: "failed"; readonly title: string; readonly message: string }

/**
 * Starts an order and follows it to its end: the result document's ID, or a failure. `onStatus`
 * hears each state as it comes; `signal` cancels (the order is cancelled at the broker too).
 */
export const followOrder = async (
  client: ViewerClient,
  start: () => Promise<OrderHandle>,
  onStatus: (status: OrderStatus) => void,
  signal: AbortSignal
): Promise<string> => {
  const handle = await start()
  const cancel = () => void client.cancelOrder(handle).catch(() => undefined)
  signal.addEventListener("abort", cancel, { once: true })
  try {
    for (;;) {
      const status = await client.order(handle, WAIT_MS, signal)
      onStatus(status)
      if (status.state === "FAILED") throw new Error(status.error ?? "the order failed")
      if (status.state === "PROCESSED") {
        if (status.result === null) throw new Error("the order made no document")
        return status.result
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel)
  }
}

/** The dialog over the viewer while an order runs, or saying why it failed. */
export const orderDialog = (view: OrderView | null, t: Translate, cancel: () => void) => {
  if (view === null) return nothing
  const body = view.phase === "failed"
    ? html`<p role="alert">${t("orderFailed", { message: view.message })}</p>`
    : (() => {
      const status = view.status
      const seconds = Math.round(
        ((status?.processingTime ?? status?.queuedTime ?? (performance.now() - view.started)) as number) / 1000
      )
      const text = status?.state === "PROCESSING"
        ? t("orderProcessing", { seconds })
        : status?.state === "PROCESSED"
        ? t("orderDone")
        : t("orderQueued", { seconds })
      return html`<p role="status" aria-live="polite"><span class="spinner"></span>${text}</p>`
    })()
  return html`<div class="order-dialog" role="dialog" aria-modal="true" aria-labelledby="order-title">
    <div>
      <h2 id="order-title">${view.title}</h2>
      ${body}
      <button type="button" class="dialog-button" data-action="order-close" @click=${cancel}>${
    view.phase === "failed" ? t("close") : t("cancel")
  }</button>
    </div>
  </div>`
}
