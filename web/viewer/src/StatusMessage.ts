/**
 * What the reader sees instead of pages when there are none to show: loading (with the
 * conversion's state), no document, or why the document cannot be shown. Never a blank page.
 */
import { html, nothing } from "lit"
import { ServiceError, type ViewerClient } from "./client/ViewerClient.ts"
import type { MessageKey, Translate } from "./i18n/messages.ts"

/** What the reader sees instead of pages, when there are none to show. */
export type Status =
  | { readonly kind: "idle" }
  | { readonly kind: "loading"; readonly detail: string | null }
  | { readonly kind: "ready" }
  | { readonly kind: "container" }
  | {
    readonly kind: "error"
    readonly error: "notFound" | "password" | "conversion" | "other"
    readonly message: string
  }

export const statusMessage = (status: Status, t: Translate) => {
  switch (status.kind) {
    case "idle":
      return html`<div class="message" role="status"><div>${t("noDocument")}</div></div>`
    case "loading":
      return html`<div class="message" role="status" aria-live="polite"><div><span class="spinner"></span>${
        status.detail ?? t("loading")
      }</div></div>`
    case "error": {
      const key: MessageKey = {
        notFound: "notFound",
        password: "passwordProtected",
        conversion: "conversionFailed",
        other: "failed"
      }[status.error] as MessageKey
      return html`<div class="message error" role="alert"><div>${t(key, { message: status.message })}</div></div>`
    }
    default:
      return nothing
  }
}

/** Why a document cannot be shown, from the failure of opening it. */
export const failureStatus = (error: unknown): Extract<Status, { kind: "error" }> => {
  const message = error instanceof Error ? error.message : String(error)
  const service = error instanceof ServiceError ? error : null
  const kind = service?.status === 404
    ? "notFound"
    : service?.reason === "password" || /password/i.test(message)
    ? "password"
    : /conver/i.test(message) && service?.status === 500
    ? "conversion"
    : "other"
  return { kind: "error", error: kind, message }
}

/** A layout slower than this gets its document's conversion state asked and shown, this often. */
export const STATE_POLL_MS = 800

/** While a layout waits (a conversion), says what the broker is doing, every STATE_POLL_MS. */
export const explainWait = async (
  client: ViewerClient,
  uuid: string,
  signal: AbortSignal,
  t: Translate,
  stillLoading: () => boolean,
  show: (status: Status) => void
) => {
  while (!signal.aborted && stillLoading()) {
    try {
      const state = await client.state(uuid, signal)
      if (signal.aborted || !stillLoading()) return
      if (state.state === "converting" && state.conversion !== null) {
        const waited = (state.conversion.processingTime ?? state.conversion.queuedTime ?? 0) / 1000
        show({
          kind: "loading",
          detail: t("convertingState", { state: state.conversion.currentState, seconds: Math.round(waited) })
        })
      }
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, STATE_POLL_MS))
  }
}
