/**
 * `<docstack-parts>`: the parts of a container (an email and its attachments, an archive, a
 * composite of several documents) as a tree. Folders start open, so every part is in sight at
 * first; choosing a document asks the viewer to open it.
 */
import { css, html, type PropertyValues, svg, type SVGTemplateResult } from "lit"
import { type ContainerLayout, type DocumentRef, isContainer } from "../client/ViewerClient.ts"
import type { MessageKey } from "../i18n/messages.ts"
import { panelStyles, treeStyles } from "./PanelStyles.ts"
import { type TreeRow, visibleRows } from "./TreeKeys.ts"
import { TreePanel } from "./TreePanel.ts"

type Part = ContainerLayout | (DocumentRef & { readonly type: string })

/** `open-part`'s detail. */
export interface PartChoice {
  readonly id: string
  readonly title: string
}

type Kind = "folder" | "email" | "pdf" | "image" | "office" | "other"

/** What a part is, from its media type, for its icon: readers look for "the PDF" or "the photo". */
export const kindOf = (part: Part): Kind => {
  if (isContainer(part)) return "folder"
  const mime = (part.mimeType ?? "").toLowerCase().split(";")[0]!.trim()
  if (mime === "message/rfc822" || mime === "application/vnd.ms-outlook" || mime === "application/mbox") return "email"
  if (mime === "application/pdf") return "pdf"
  if (mime.startsWith("image/")) return "image"
  if (
    mime.startsWith("application/vnd.openxmlformats-officedocument.") || mime.startsWith("application/vnd.ms-") ||
    mime.startsWith("application/vnd.oasis.opendocument.") || mime === "application/msword" ||
    mime === "application/rtf" || mime === "text/rtf"
  ) return "office"
  return "other"
}

const kindLabels: Record<Kind, MessageKey> = {
  folder: "kindFolder",
  email: "kindEmail",
  pdf: "kindPdf",
  image: "kindImage",
  office: "kindOffice",
  other: "kindOther"
}

/** Icons in the toolbar's manner (24×24, stroked); the colour tells kinds apart at a glance. */
const kindIcons: Record<Kind, SVGTemplateResult> = {
  folder: svg`<path d="M3 6a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z"/>`,
  email: svg`<rect x="3" y="5" width="18" height="14" rx="2"/><path d="M3 7l9 6 9-6"/>`,
  pdf: svg`<path d="M14 3H6v18h12V7z"/><path d="M14 3v4h4M9 13h6M9 17h4"/>`,
  image:
    svg`<rect x="3" y="4" width="18" height="16" rx="2"/><circle cx="9" cy="10" r="2"/><path d="M21 16l-5-5-9 9"/>`,
  office: svg`<path d="M14 3H6v18h12V7z"/><path d="M14 3v4h4M9 11h6M9 14h6M9 17h6"/>`,
  other: svg`<path d="M14 3H6v18h12V7z"/><path d="M14 3v4h4"/>`
}

const childrenOf = (part: Part): ReadonlyArray<Part> => isContainer(part) ? part.children : []

const titleOf = (part: Part) => part.documentTitle || part.documentId.id

export class PartsPanel extends TreePanel<Part> {
  static override properties = {
    root: { attribute: false },
    openId: { attribute: false },
    collapsed: { state: true }
  }

  static override styles = [
    panelStyles,
    treeStyles,
    css`
      .icon {
        flex: none;
        width: 18px;
        height: 18px;
        fill: none;
        stroke: currentColor;
        stroke-width: 1.8;
        stroke-linecap: round;
        stroke-linejoin: round;
      }
      .icon[data-kind="folder"] {
        color: #c27803;
      }
      .icon[data-kind="pdf"] {
        color: #d92d20;
      }
      .icon[data-kind="image"] {
        color: #079455;
      }
      .icon[data-kind="email"],
      .icon[data-kind="office"] {
        color: var(--docstack-accent, #0b62d6);
      }
      .icon[data-kind="other"] {
        color: var(--docstack-muted, #6b7280);
      }
      /* The icon says the kind to the eye; this says it to a screen reader. */
      .kind {
        position: absolute;
        width: 1px;
        height: 1px;
        overflow: hidden;
        clip-path: inset(50%);
        white-space: nowrap;
      }
    `
  ]

  declare root: ContainerLayout | null
  declare openId: string | null
  /** Keys of the folders a reader closed: the rest are open, as every folder is at first. */
  declare collapsed: ReadonlySet<string>

  constructor() {
    super()
    this.root = null
    this.openId = null
    this.collapsed = new Set()
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has("root")) {
      this.collapsed = new Set()
      this.focusKey = null
    }
    if ((changed.has("openId") || changed.has("root")) && this.openId !== null) this.reveal(this.openId)
    this.rows = visibleRows(this.root?.children ?? [], childrenOf, (key) => !this.collapsed.has(key))
  }

  /** Opens the folders around the part shown, and gives it the tab stop, so a reader finds it. */
  private reveal(id: string) {
    const find = (parts: ReadonlyArray<Part>, prefix: string): string | null => {
      for (const [position, part] of parts.entries()) {
        const key = prefix === "" ? String(position) : `${prefix}.${position}`
        if (!isContainer(part) && part.documentId.id === id) return key
        const inside = find(childrenOf(part), key)
        if (inside !== null) return inside
      }
      return null
    }
    const key = find(this.root?.children ?? [], "")
    if (key === null) return
    const collapsed = new Set(this.collapsed)
    const path = key.split(".")
    for (let length = 1; length < path.length; length++) collapsed.delete(path.slice(0, length).join("."))
    this.collapsed = collapsed
    this.focusKey = key
  }

  protected override toggle(key: string, open: boolean) {
    const collapsed = new Set(this.collapsed)
    if (open) collapsed.delete(key)
    else collapsed.add(key)
    this.collapsed = collapsed
  }

  protected override activate(row: TreeRow<Part>) {
    if (isContainer(row.node)) return this.toggle(row.key, !row.expanded)
    const detail: PartChoice = { id: row.node.documentId.id, title: titleOf(row.node) }
    this.dispatchEvent(new CustomEvent("open-part", { bubbles: true, composed: true, detail }))
  }

  protected override render() {
    const { t } = this
    if (this.rows.length === 0) return html`<p class="message">${t("emptyContainer")}</p>`
    return this.renderTree(t("parts"), (row) => {
      const kind = kindOf(row.node)
      return {
        className: "row",
        current: !isContainer(row.node) && row.node.documentId.id === this.openId,
        content: html`<svg class="icon" data-kind=${kind} viewBox="0 0 24 24" aria-hidden="true">${
          kindIcons[kind]
        }</svg>
          <span class="label" title=${titleOf(row.node)}>${titleOf(row.node)}</span>
          <span class="kind">${`, ${t(kindLabels[kind])}`}</span>`
      }
    })
  }
}

customElements.define("docstack-parts", PartsPanel)
