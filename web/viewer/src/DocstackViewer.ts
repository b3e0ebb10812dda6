/**
 * `<docstack-viewer>`: a document from the viewer service, read, annotated, redacted, compared and
 * rearranged in the browser. Reading (the document, its pages, scrolling, zoom, find) is
 * ReadingViewer's; this element adds the toolbar, the side panels, the annotation and redaction
 * tools and the views beyond the pages. Public API and events: docs/viewer.md, "Embedding".
 */
import { html, nothing } from "lit"
import { rememberDocument } from "./client/RecentDocuments.ts"
import "./compare/CompareView.ts"
import "./organize/PageOrganizer.ts"
import { AnnotationController, type AnnotationViewer } from "./annotations/AnnotationController.ts"
import "./annotations/AnnotationBar.ts"
import type { Annotation } from "./annotations/AnnotationModel.ts"
import { typeLabel } from "./annotations/AnnotationsPanel.ts"
import { SelectionMenu } from "./annotations/SelectionMenu.ts"
import type { OrderHandle } from "./client/ViewerClient.ts"
import { followOrder, orderDialog, type OrderView } from "./orders/OrderProgress.ts"
import "./redaction/RedactionPanel.ts"
import type { DownloadKind, SearchOptions } from "./client/ViewerClient.ts"
import type { RedactionPanel } from "./redaction/RedactionPanel.ts"
import "./find/FindBar.ts"
import { highlightsOn } from "./find/FindController.ts"
import { type Command, commandOf } from "./input/Shortcuts.ts"
import { CSS_PER_POINT, imageSize, stepScale, type Zoom } from "./pages/PageGeometry.ts"
import { pageList } from "./pages/PageList.ts"
import { sidebar } from "./panels/Sidebar.ts"
import { ReadingViewer } from "./ReadingViewer.ts"
import { statusMessage } from "./StatusMessage.ts"
import { toolbar } from "./toolbar/Toolbar.ts"
import { viewerStyles } from "./ViewerStyles.ts"

/** Input types a reader types text into: their keys (Ctrl+Z, arrows, Delete) are theirs. */
const TYPED_INPUTS = new Set(["text", "search", "number", "email", "url", "tel", "password"])

/**
 * What has the keyboard: a field typed into, another field that uses keys (a list, a slider), a
 * control pressed with Space or Enter, or none of them (the pages, a panel's background).
 */
const focusOf = (target: EventTarget | undefined): "typing" | "field" | "control" | "none" => {
  if (target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && TYPED_INPUTS.has(target.type))) {
    return "typing"
  }
  if (target instanceof HTMLSelectElement || target instanceof HTMLInputElement) return "field"
  const role = target instanceof HTMLElement ? target.getAttribute("role") : null
  return target instanceof HTMLButtonElement ||
      (role !== null && /^(button|tab|radio|menuitem|option|checkbox)$/.test(role))
    ? "control"
    : "none"
}

export type OpenRequest =
  | { readonly uuid: string }
  | { readonly url: string | ReadonlyArray<string>; readonly title?: string }

export class DocstackViewer extends ReadingViewer implements AnnotationViewer {
  static override styles = viewerStyles
  static override properties = {
    ...ReadingViewer.properties,
    user: { type: String },
    editMode: { state: true },
    view: { state: true },
    order: { state: true }
  }

  /** The reader's name: the author of the annotations they make (the service may put the signed-in user's). */
  declare user: string
  /** The annotation or redaction tools are out. */
  declare editMode: "annotate" | "redact" | null
  /** The pages, or a view beyond them: arranging them, comparing with another document. */
  declare view: "pages" | "organize" | "compare"
  /** An order running (or failed) for the reader: its dialog. */
  declare order: OrderView | null

  private readonly annotating = new AnnotationController(this, () => this.client)
  private readonly selectionMenu = new SelectionMenu(this, this.annotating)
  private orderRun: AbortController | null = null

  constructor() {
    super()
    this.user = ""
    this.editMode = null
    this.view = "pages"
    this.order = null
    this.addEventListener("keydown", (event) => this.onKey(event))
  }

  // ---- Public API (docs/viewer.md, "Embedding"; reading's is ReadingViewer's) ----------------

  /**
   * Opens a document by the viewer's ID, or documents by URL (several become one container). Rejects
   * when it cannot be shown, with the `error` event's kind as the error's name; the element says why.
   */
  async open(request: OpenRequest): Promise<void> {
    if ("uuid" in request) {
      this.uuid = request.uuid
      await this.load(request.uuid)
    } else {
      const urls = typeof request.url === "string" ? [request.url] : [...request.url]
      this.setStatus({ kind: "loading", detail: null })
      try {
        const uuid = await this.client.openUrls(urls, request.title)
        this.uuid = uuid
        await this.load(uuid)
      } catch (error) {
        this.fail(error)
      }
    }
    const status = this.status
    if (status.kind === "error") throw Object.assign(new Error(status.message), { name: status.error })
  }

  /** Finds `text` in the document; answers the number of matches once the search is complete. */
  async search(text: string, options: SearchOptions = {}): Promise<number> {
    this.findOpen = true
    if (this.finder === null) return 0
    await this.finder.find(text, options, this.current)
    return this.finder.state.hits.length
  }

  /** Turns the current page (or all pages) by `degrees` clockwise (a multiple of 90). */
  rotate(degrees = 90, options: { readonly allPages?: boolean } = {}) {
    const layout = this.layout
    if (layout === null) return
    // A new map, so the thumbnails see the change.
    const rotations = new Map(this.rotations)
    const turn = (index: number) => rotations.set(index, ((rotations.get(index) ?? 0) + degrees + 360) % 360)
    if (options.allPages) layout.pageDimensionsList.forEach((_, index) => turn(index))
    else turn(this.current)
    this.rotations = rotations
    this.relayout(this.zoom, { x: 0, y: 0 })
  }

  /** Downloads the original file or its PDF rendition. */
  download(kind: DownloadKind = "original") {
    if (this.uuid === null) return
    this.saveLink(this.client.downloadUrl(this.layout?.documentId.id ?? this.uuid, kind))
  }

  /**
   * Applies an XFDF or FDF file to the document's annotations (those it names by ID are replaced,
   * the others added), then shows them as they now stand.
   */
  async importAnnotations(file: Blob, name = "annotations.xfdf"): Promise<void> {
    const uuid = this.pages?.uuid
    const store = this.annotating.store
    if (uuid === undefined || store === null) return
    await store.whenSaved()
    try {
      await this.client.importAnnotationFile(uuid, file, file instanceof File ? file.name : name)
      this.annotating.open(uuid, this.t("annotationsImported"))
    } catch (error) {
      store.report({ error: (error as Error).message })
      throw error
    }
  }

  /** Saves what a URL answers as a file, named by the service unless a name is given. */
  private saveLink(url: string, filename = "") {
    const link = document.createElement("a")
    link.href = url
    link.download = filename
    link.rel = "noopener"
    this.renderRoot.append(link)
    link.click()
    link.remove()
  }

  /** Prints every page: the printPage servlet in a hidden frame prints itself once its images are in. */
  print() {
    const layout = this.layout
    if (layout === null) return
    this.renderRoot.querySelector("iframe.print")?.remove()
    const frame = document.createElement("iframe")
    frame.className = "print"
    frame.title = this.t("print")
    frame.style.cssText = "position:fixed;width:0;height:0;border:0;visibility:hidden"
    // 1000 pixels over a 700 CSS px sheet width: sharp on paper at about 150 dpi.
    frame.src = this.client.printUrl(layout.documentId.id, layout.pageDimensionsList.length, 1000, 700)
    this.renderRoot.append(frame)
  }

  /** Shows the annotation tools (`"annotate"`), the redaction tools (`"redact"`), or neither (null). */
  setEditMode(mode: "annotate" | "redact" | null) {
    this.editMode = mode
    this.annotating.setTool("select")
    if (mode !== null) {
      this.sidebarTab = mode === "redact" ? "redaction" : "annotations"
      // On a narrow element the panel would float over most of the page: it opens when asked.
      if (!this.narrow) this.sidebarOpen = true
    }
  }

  /** The annotations of the document shown, as they stand (changes not yet saved included). */
  getAnnotations(): ReadonlyArray<Annotation> {
    return this.annotating.store?.all() ?? []
  }

  /**
   * Applies the document's redaction marks: a redacted copy is made (the original stays as it is)
   * and opened. Answers the copy's ID.
   */
  async applyRedactions(): Promise<string> {
    const uuid = this.pages?.uuid
    if (uuid === undefined) throw new Error("No document is open")
    await this.annotating.store?.whenSaved()
    const title = this.t("redactedTitle", { title: this.layout?.documentTitle ?? "" })
    return this.runOrder(
      this.t("applyingRedactions"),
      () => this.client.transformation([{ uuid }], { redact: true, title })
    )
  }

  /**
   * Runs an order with its progress shown, then opens the document it made (the `documentcreated`
   * event tells the page which); the dialog says why when it fails, and can cancel it meanwhile.
   */
  protected async runOrder(title: string, start: () => Promise<OrderHandle>): Promise<string> {
    this.orderRun?.abort()
    const run = new AbortController()
    this.orderRun = run
    this.order = { phase: "running", title, status: null, started: performance.now() }
    try {
      const result = await followOrder(this.client, start, (status) => {
        if (this.orderRun === run) this.order = { phase: "running", title, status, started: performance.now() }
      }, run.signal)
      this.order = null
      const source = this.pages?.uuid
      // The document made is read in the pages, whichever view asked for it.
      this.view = "pages"
      await this.updateComplete
      await this.open({ uuid: result })
      // The event names the document made by its own title (the order's is the dialog's).
      this.dispatch("documentcreated", { uuid: result, source, title: this.layout?.documentTitle ?? title })
      return result
    } catch (error) {
      if (!run.signal.aborted) this.order = { phase: "failed", title, message: (error as Error).message }
      throw error
    }
  }

  /**
   * The view shown instead of the pages: the page organizer or the comparison. Each asks for its
   * orders through a `run-order` event, whose result the viewer then opens.
   */
  private viewBeyondPages() {
    const layout = this.layout
    const pages = this.pages
    if (this.view === "pages" || layout === null || pages === null) return nothing
    const runOrder = (event: CustomEvent<{ title: string; start: () => Promise<OrderHandle> }>) =>
      void this.runOrder(event.detail.title, event.detail.start).catch(() => undefined)
    const close = () => (this.view = "pages")
    return this.view === "organize"
      ? html`<docstack-page-organizer class="view" .client=${this.client} .loader=${this.loader} .uuid=${pages.uuid}
          .layout=${layout} .t=${this.t} .language=${this.language} @run-order=${runOrder} @close-view=${close}></docstack-page-organizer>`
      : html`<docstack-compare class="view" .client=${this.client} .uuid=${pages.uuid} .layout=${layout}
          .t=${this.t} .language=${this.language} @run-order=${runOrder} @close-view=${close}></docstack-compare>`
  }

  private closeOrder() {
    this.orderRun?.abort()
    this.orderRun = null
    this.order = null
  }

  // ---- Annotations ------------------------------------------------------------------------

  get author() {
    return this.user || this.t("guest")
  }

  protected override get drawsAnnotations() {
    return true
  }

  protected override documentShown(uuid: string) {
    this.annotating.open(uuid)
    rememberDocument(uuid, this.layout?.documentTitle ?? null)
  }

  protected override documentClosing() {
    this.annotating.close()
  }

  pageDimensions(index: number) {
    return this.layout?.pageDimensionsList[index]
  }

  viewCentre() {
    const geometry = this.geometry
    const viewport = this.viewport
    if (geometry === null || viewport === null) return null
    const page = this.current
    const dims = this.layout?.pageDimensionsList[page]
    if (dims === undefined) return null
    const size = imageSize(dims)
    const perPoint = CSS_PER_POINT * geometry.scale
    const middle = geometry.contentTop(viewport.scrollTop, viewport.clientHeight) + viewport.clientHeight / 2
    const y = Math.min(size.height - 40, Math.max(40, (middle - geometry.tops[page]!) / perPoint))
    return { page, point: { x: size.width / 2, y } }
  }

  private showPanel(tab: "annotations" | "redaction") {
    this.sidebarOpen = true
    this.sidebarTab = tab
  }

  /** The bar's "apply": the redaction panel asks to confirm. */
  private async askToApply() {
    this.showPanel("redaction")
    await this.updateComplete
    this.renderRoot.querySelector<RedactionPanel>("docstack-redaction")?.confirmApply()
  }

  showInPanel(id: string) {
    this.sidebarOpen = true
    this.sidebarTab = "annotations"
    this.annotating.store?.select(id)
  }

  // ---- Input ------------------------------------------------------------------------------

  private onKey(event: KeyboardEvent) {
    const path = event.composedPath()
    const focus = focusOf(path[0])
    if (event.key === "Escape" && this.menuOpen) return (this.menuOpen = false)
    const onPages = this.viewport !== null && path.includes(this.viewport)
    const onBar = path.some((node) => node instanceof HTMLElement && node.tagName === "DOCSTACK-ANNOTATION-BAR")
    if (this.annotating.editor.onKey(event, focus, onPages || (onBar && focus === "control"))) {
      return event.preventDefault()
    }
    // Another view in place of the pages keeps the keys (it has its own).
    if (this.view !== "pages") return
    // Space and Enter on a button press it.
    if (focus === "control" && (event.key === " " || event.key === "Enter")) return
    const command = commandOf(event, focus === "typing" || focus === "field")
    if (command === undefined || (command.kind !== "find" && this.layout === null)) return
    event.preventDefault()
    this.run(command)
  }

  private run(command: Command) {
    const viewport = this.viewport
    switch (command.kind) {
      case "page": {
        const last = this.pageCount - 1
        const to = { next: this.current + 1, previous: this.current - 1, first: 0, last }[command.to]
        return void this.goToPage(Math.min(last, Math.max(0, to)) + 1)
      }
      case "screen":
        return viewport?.scrollBy({ top: command.direction * viewport.clientHeight * 0.9 })
      case "zoom":
        return this.zoomTo(command.to === "reset" ? "page-width" : stepScale(this.scale, command.to === "in" ? 1 : -1))
      case "find":
        return this.toggleFind(true)
      case "find-move":
        return this.finder?.move(command.direction)
      case "rotate":
        return this.rotate(90)
    }
  }

  protected override firstUpdated() {
    const viewport = this.viewport!
    this.resizeObserver.observe(viewport)
    this.gestures.attach(viewport)
    this.annotating.editor.attach(viewport)
  }

  protected override render() {
    const t = this.t
    const layout = this.layout
    const actions = {
      toggleSidebar: () => (this.sidebarOpen = !this.sidebarOpen),
      goTo: (index: number) => void this.goToPage(index + 1),
      zoomStep: (direction: 1 | -1) => this.zoomTo(stepScale(this.scale, direction)),
      setZoom: (zoom: Zoom) => this.zoomTo(zoom),
      rotate: (allPages: boolean) => this.rotate(90, { allPages }),
      toggleFind: () => this.toggleFind(),
      download: (kind: DownloadKind) => this.download(kind),
      print: () => this.print(),
      fullScreen: () => (document.fullscreenElement ? document.exitFullscreen() : this.requestFullscreen()),
      toggleDark: () => (this.theme = this.theme === "dark" ? "light" : "dark"),
      toggleMenu: () => (this.menuOpen = !this.menuOpen),
      toggleEditMode: (mode: "annotate" | "redact") => this.setEditMode(this.editMode === mode ? null : mode),
      toggleView: (view: "organize" | "compare") => (this.view = this.view === view ? "pages" : view)
    }
    const store = this.annotating.store
    const version = store?.version ?? 0
    return html`
      ${
      toolbar({
        t,
        title: [this.root?.documentTitle, layout?.documentTitle].filter((part) => part).join(" › "),
        pageCount: this.pageCount,
        current: this.current,
        zoom: this.zoom,
        scale: this.scale,
        sidebarOpen: this.sidebarOpen,
        findOpen: this.findOpen,
        dark: this.theme === "dark",
        menuOpen: this.menuOpen,
        narrow: this.narrow,
        hasDocument: layout !== null,
        pagesShown: this.view === "pages",
        editMode: this.editMode,
        view: this.view
      }, actions)
    }
      ${
      this.editMode !== null && store !== null && this.view === "pages"
        ? html`<docstack-annotation-bar .controller=${this.annotating} .t=${t} .mode=${this.editMode}
            .language=${this.language} .version=${version}
            @find-and-redact=${() => this.showPanel("redaction")}
            @apply-redactions=${() => this.askToApply()}
            @annotations-import=${(event: CustomEvent<File>) =>
          // A refused file is said in the bar.
          void this.importAnnotations(event.detail).catch(() => undefined)}
            @annotations-export=${() =>
          this.saveLink(
            this.client.annotationFileUrl(this.pages!.uuid),
            `${this.layout?.documentTitle ?? "annotations"}.xfdf`
          )}
            @download-annotated=${(event: CustomEvent<{ flatten: boolean }>) =>
          this.saveLink(this.client.annotatedDownloadUrl(this.pages!.uuid, event.detail.flatten))}
          ></docstack-annotation-bar>`
        : nothing
    }
      ${
      this.findOpen
        ? html`<docstack-find-bar .t=${t} .state=${this.findState}
            @find=${(event: CustomEvent) =>
          void this.finder?.find(event.detail.query, event.detail.options, this.current)}
            @find-move=${(event: CustomEvent) => this.finder?.move(event.detail.direction)}
            @find-close=${() => this.toggleFind(false)}></docstack-find-bar>`
        : nothing
    }
      <div class="body">
        ${
      // The other views (organizing, comparing) have panels of their own.
      this.sidebarOpen && this.view === "pages"
        ? sidebar({
          t,
          tab: this.sidebarTab,
          pages: this.pages,
          layout,
          root: this.root,
          rotations: this.rotations,
          current: this.current,
          client: this.client,
          selectTab: (tab) => (this.sidebarTab = tab),
          navigate: (index, top) => {
            if (this.narrow) this.sidebarOpen = false
            void this.goToPage(index + 1, top ?? 0)
          },
          openPart: (id) => void this.load(id, true),
          extraTabs: store === null ? [] : [
            {
              name: "annotations",
              wide: true,
              panel: () =>
                html`<docstack-annotations .controller=${this.annotating} .t=${t} .language=${this.language}
                  .version=${version}></docstack-annotations>`
            },
            ...(this.editMode === "redact" && this.pages !== null
              ? [{
                name: "redaction" as const,
                wide: true,
                panel: () =>
                  html`<docstack-redaction .controller=${this.annotating} .client=${this.client} .uuid=${
                    this.pages!.uuid
                  }
                    .pageCount=${this.pageCount} .t=${t} .language=${this.language} .version=${version}
                    @apply-redactions=${() => void this.applyRedactions().catch(() => undefined)}></docstack-redaction>`
              }]
              : [])
          ]
        })
        : nothing}
        ${this.viewBeyondPages()}
        <div class="viewport" tabindex="0" role="region" aria-label=${layout?.documentTitle ?? t("pages")}
          ?hidden=${this.view !== "pages"}
          @scroll=${() => this.onScroll()}
          @page-painted=${(event: CustomEvent) =>
      this.dispatch("pagerendered", { pageNumber: event.detail.index + 1, width: event.detail.width })}>
          ${
      this.status.kind === "ready" && this.geometry !== null && this.pages !== null
        ? pageList({
          geometry: this.geometry,
          pages: this.pages,
          viewport: this.viewport,
          fallbackSize: this.viewportSize,
          range: this.range,
          rotations: this.rotations,
          tiling: this.tiling,
          highlightsOf: (index) => highlightsOn(this.findState, index),
          overlayOf: (index) =>
            this.annotating.layerFor(index, this.geometry!.pages[index]!, this.geometry!.scale, (a) => typeLabel(t, a)),
          t
        })
        : nothing
    }
          ${statusMessage(this.status, t)}
        </div>
        ${this.selectionMenu.render(t)}
        ${orderDialog(this.order, t, () => this.closeOrder())}
      </div>`
  }
}

customElements.define("docstack-viewer", DocstackViewer)
