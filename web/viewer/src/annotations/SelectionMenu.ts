/**
 * The small menu over selected text: highlight, underline, strike out, squiggly, mark for
 * redaction, copy. It follows the selection (the browser's `selectionchange`), shows once the
 * pointer is released, and goes with the selection.
 */
import { html, nothing, type ReactiveController } from "lit"
import type { Translate } from "../i18n/messages.ts"
import { icon, type IconName } from "../toolbar/Icons.ts"
import { toolKey } from "./AnnotationBar.ts"
import type { AnnotationController, AnnotationViewer } from "./AnnotationController.ts"
import type { Tool } from "./AnnotationTools.ts"
import { selectedText, selectionIn } from "./TextSelection.ts"

const MARKS: ReadonlyArray<[Tool, IconName]> = [
  ["Highlight", "highlight"],
  ["Underline", "underline"],
  ["StrikeOut", "strikeout"],
  ["Squiggly", "squiggly"],
  ["RedactText", "redactText"]
]

export class SelectionMenu implements ReactiveController {
  /** Where the menu stands, in the `.body` box's pixels; null: no menu. */
  private at: { left: number; top: number } | null = null
  private frame = 0
  private pointerDown = false
  /** Whether the last update found the store open to marks; a selection made before it was gets its menu when it is. */
  private markable = false

  constructor(private readonly host: AnnotationViewer, private readonly annotations: AnnotationController) {
    host.addController(this)
  }

  private readonly onSelectionChange = () => {
    if (this.frame !== 0) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.place()
    })
  }

  private readonly onPointer = (event: PointerEvent) => {
    this.pointerDown = event.type === "pointerdown"
    if (!this.pointerDown) this.onSelectionChange()
  }

  hostConnected() {
    document.addEventListener("selectionchange", this.onSelectionChange)
    document.addEventListener("pointerdown", this.onPointer, true)
    document.addEventListener("pointerup", this.onPointer, true)
  }

  hostUpdated() {
    const store = this.annotations.store
    const markable = store !== null && !store.readOnly
    if (markable !== this.markable) {
      this.markable = markable
      this.onSelectionChange()
    }
  }

  hostDisconnected() {
    document.removeEventListener("selectionchange", this.onSelectionChange)
    document.removeEventListener("pointerdown", this.onPointer, true)
    document.removeEventListener("pointerup", this.onPointer, true)
    cancelAnimationFrame(this.frame)
  }

  private place() {
    const root = this.host.renderRoot as ShadowRoot
    const before = this.at
    this.at = null
    const store = this.annotations.store
    const selection = selectionIn(root)
    // While the pointer is down the reader is still selecting; a text tool marks on release instead.
    if (!this.pointerDown && store !== null && !store.readOnly && selection !== null && !selection.isCollapsed) {
      if (this.annotations.tool !== "select" && this.annotations.markSelection(this.annotations.tool)) return
      const body = root.querySelector<HTMLElement>(".body")
      const rects = selection.rangeCount > 0 ? [...selection.getRangeAt(0).getClientRects()] : []
      const last = rects[rects.length - 1]
      if (body && last && selectedText(root).length > 0) {
        const box = body.getBoundingClientRect()
        this.at = {
          left: Math.max(4, Math.min(box.width - 230, last.right - box.left - 110)),
          top: Math.min(box.height - 40, last.bottom - box.top + 6)
        }
      }
    }
    if (before !== this.at) this.host.requestUpdate()
  }

  render(t: Translate) {
    if (this.at === null) return nothing
    const mark = (tool: Tool) => {
      this.annotations.markSelection(tool)
      this.at = null
      this.host.requestUpdate()
    }
    const copy = () => {
      const text = selectionIn(this.host.renderRoot as ShadowRoot)?.toString() ?? ""
      void navigator.clipboard?.writeText(text)
    }
    return html`<div class="selection-menu" role="toolbar" aria-label=${t("selectionMenu")}
      style=${`left:${this.at.left}px;top:${this.at.top}px`} @pointerdown=${(event: Event) => event.preventDefault()}>
      ${
      MARKS.map(([tool, name]) =>
        html`<button type="button" class="icon-button" data-mark=${tool} aria-label=${t(toolKey(tool))}
          title=${t(toolKey(tool))} @click=${() => mark(tool)}>${icon(name)}</button>`
      )
    }
      <button type="button" class="icon-button" data-mark="copy" aria-label=${t("copy")} title=${t("copy")}
        @click=${copy}>${icon("file")}</button>
    </div>`
  }
}
