/**
 * Annotations in the viewer: the document's store, the tool chosen and its style, the pointer and
 * key editing, what each page draws over its image, and the `annotationchange` event for the page's
 * code. The viewer element owns one; it renders the bar, the panel and the page layers from it.
 */
import type { ReactiveController, ReactiveControllerHost } from "lit"
import type { PageDimensions, ViewerClient } from "../client/ViewerClient.ts"
import { CSS_PER_POINT, imageSize } from "../pages/PageGeometry.ts"
import { AnnotationEditor } from "./AnnotationEditor.ts"
import { annotationLayer } from "./AnnotationLayer.ts"
import { type Annotation, type Rgb } from "./AnnotationModel.ts"
import { rgbOf } from "./AnnotationModel.ts"
import { AnnotationStore, type StoreChange } from "./AnnotationStore.ts"
import {
  DEFAULT_STYLES,
  drawsOnPage,
  fillTemplate,
  fromQuads,
  type Making,
  marksText,
  PLACED_TOOLS,
  stampTemplates,
  type Tool,
  type ToolStyle
} from "./AnnotationTools.ts"
import { selectedText, selectionIn } from "./TextSelection.ts"

/** What the controller needs of the viewer element. */
export interface AnnotationViewer extends ReactiveControllerHost, HTMLElement {
  readonly renderRoot: HTMLElement | DocumentFragment
  /** The name new annotations are written under. */
  readonly author: string
  pageDimensions(index: number): PageDimensions | undefined
  /** The page in the middle of the view and that point of it, in page points. */
  viewCentre(): { readonly page: number; readonly point: { readonly x: number; readonly y: number } } | null
  /** Opens the annotations panel on an annotation (a note's thread, say). */
  showInPanel(id: string): void
}

export class AnnotationController implements ReactiveController {
  store: AnnotationStore | null = null
  tool: Tool = "select"
  /** Each tool's style, as the reader last set it. */
  styles: Record<Exclude<Tool, "select">, ToolStyle> = { ...DEFAULT_STYLES }
  stampName: string | null = null
  redactReason: string | null = null
  /** The free text annotation being typed into. */
  editingId: string | null = null
  readonly editor: AnnotationEditor
  private loading: AbortController | null = null

  constructor(private readonly host: AnnotationViewer, private readonly client: () => ViewerClient) {
    host.addController(this)
    const root = () => host.renderRoot as ShadowRoot
    this.editor = new AnnotationEditor({
      get root() {
        return root()
      },
      store: () => this.store,
      tool: () => this.tool,
      making: (tool, page) => this.makingFor(tool, page),
      pageSize: (index) => {
        const dims = host.pageDimensions(index)
        return dims ? imageSize(dims) : undefined
      },
      viewCentre: () => host.viewCentre(),
      changed: () => host.requestUpdate(),
      created: (a) => this.created(a)
    })
  }

  /** The name new annotations and replies are written under. */
  get author() {
    return this.host.author
  }

  hostDisconnected() {
    this.loading?.abort()
  }

  /** Reads the annotations of the document now shown (`uuid`), dropping the last one's; `notice` says why (an import). */
  open(uuid: string, notice?: string) {
    this.loading?.abort()
    const loading = new AbortController()
    this.loading = loading
    this.editingId = null
    this.editor.cancel()
    this.store = new AnnotationStore(this.client(), uuid, () => this.host.author, (change) => this.onChange(change))
    const store = this.store
    void store.load(loading.signal).then(() => notice !== undefined && store.report({ notice }))
  }

  close() {
    this.loading?.abort()
    this.store = null
    this.tool = "select"
  }

  setTool(tool: Tool) {
    this.editor.cancel()
    this.tool = tool
    // A markup tool applies at once to text already selected, as in other viewers.
    if (marksText(tool)) this.markSelection(tool)
    this.host.requestUpdate()
  }

  /** The style shown in the bar: the selected annotation's tool's, or the chosen tool's. */
  style(tool: Exclude<Tool, "select">): ToolStyle {
    return this.styles[tool]
  }

  setStyle(tool: Exclude<Tool, "select">, change: Partial<ToolStyle>) {
    this.styles = { ...this.styles, [tool]: { ...this.styles[tool], ...change } }
    this.host.requestUpdate()
  }

  /** What a tool makes on `page` now: its style, the stamp template and redaction reason chosen. */
  makingFor(tool: Exclude<Tool, "select">, page: number): Making {
    const template = tool === "Stamp"
      ? stampTemplates(this.store?.policy ?? null).find((t) => t.name === this.stampName) ??
        stampTemplates(this.store?.policy ?? null)[0]
      : undefined
    const reason = this.redactReason ?? this.store?.policy?.defaultRedactReasons?.[0] ??
      this.store?.policy?.availableRedactReasons[0]?.symbolicName
    return {
      tool,
      page,
      style: this.styles[tool],
      ...(template
        ? {
          stamp: {
            name: template.name,
            contents: fillTemplate(template.contentTemplate, this.host.author),
            color: rgbOf(template.annotationStyle.fontColor) as Rgb | undefined
          }
        }
        : {}),
      redactReason: reason
    }
  }

  /** Marks the selected text with a text tool (highlight, underline, strikeout, squiggly, text redaction). */
  markSelection(tool: Tool): boolean {
    const store = this.store
    if (store === null || store.readOnly || !marksText(tool)) return false
    const root = this.host.renderRoot as ShadowRoot
    const pieces = selectedText(root)
    if (pieces.length === 0) return false
    const made = store.create(
      pieces.map((piece) =>
        fromQuads(this.makingFor(tool as Exclude<Tool, "select">, piece.page), piece.quads, piece.text)
      )
    )
    selectionIn(root)?.removeAllRanges()
    store.select(made[made.length - 1]!.id)
    return true
  }

  private created(a: Annotation) {
    // A note, a text box or a stamp is placed once: the next click selects rather than places another.
    if ((PLACED_TOOLS as ReadonlyArray<string>).includes(this.tool)) this.tool = "select"
    if (a.type === "FreeText") this.editingId = a.id
    if (a.type === "Text") this.host.showInPanel(a.id)
    this.host.requestUpdate()
    if (a.type === "FreeText") {
      void this.host.updateComplete.then(() =>
        (this.host.renderRoot as ShadowRoot).querySelector<HTMLTextAreaElement>(".free-text-field")?.focus()
      )
    }
  }

  /** Starts typing into a free text annotation (double click, Enter in the list). */
  editText(id: string) {
    const a = this.store?.get(id)
    if (a?.type !== "FreeText" || this.store?.readOnly) return
    this.editingId = id
    this.created(a)
  }

  private finishText(a: Annotation, text: string) {
    const store = this.store
    this.editingId = null
    if (store === null) return
    const kept = store.get(a.id)
    if (kept === undefined) return
    // Free text left empty is no annotation.
    if (text.trim() === "") store.remove([a.id])
    else if (text !== (kept.contents ?? "")) store.update([{ ...kept, contents: text }])
    this.host.requestUpdate()
  }

  /** What page `index` draws over its image. */
  layerFor(index: number, dims: PageDimensions, scale: number, label: (a: Annotation) => string) {
    const store = this.store
    if (store === null) return null
    const size = imageSize(dims)
    const editing = this.editingId === null ? null : store.get(this.editingId) ?? null
    const draft = this.editor.draft?.page === index ? this.editor.draft : null
    return annotationLayer({
      annotations: store.onPage(index),
      selected: store.selected,
      editing: editing?.page === index ? editing : null,
      draft,
      width: size.width,
      height: size.height,
      scale: scale * CSS_PER_POINT,
      drawing: drawsOnPage(this.tool) && !store.readOnly,
      readOnly: store.readOnly,
      label,
      onText: (a, text) => this.finishText(a, text)
    })
  }

  private onChange(change: StoreChange) {
    this.host.requestUpdate()
    const command = change.command
    if (command === null || change.cause === "preview" || change.cause === "select" || change.cause === "report") return
    const annotations = command.kind === "update" ? command.after : command.annotations
    const action = command.kind === "create" ? "created" : command.kind === "remove" ? "removed" : "changed"
    this.host.dispatchEvent(
      new CustomEvent("annotationchange", {
        detail: { action, cause: change.cause, annotations },
        bubbles: true,
        composed: true
      })
    )
  }
}
