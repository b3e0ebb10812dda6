import type { Annotation } from "../annotations/AnnotationModel.ts"

/**
 * The viewer service's servlets and JSON routes as the browser calls them (docs/viewer.md). The
 * browser talks to nothing else. Every call takes an AbortSignal, so work for a page scrolled past
 * is cancelled, not finished for nobody.
 */

export interface PageDimensions {
  readonly width: number
  readonly height: number
  readonly rotation: number
  readonly dpi: number
}

export interface DocumentRef {
  readonly documentId: { readonly id: string }
  readonly documentTitle: string | null
  readonly mimeType: string | null
}

export interface PageLayout extends DocumentRef {
  readonly type: string
  readonly pageDimensionsList: ReadonlyArray<PageDimensions>
}

export interface ContainerLayout extends DocumentRef {
  readonly type: string
  readonly children: ReadonlyArray<ContainerLayout | (DocumentRef & { readonly type: string })>
}

export type Layout = PageLayout | ContainerLayout

export const isContainer = (layout: { readonly type: string }): layout is ContainerLayout =>
  layout.type.endsWith("DocumentContainer")

/** The first document of a container, depth first: what a reader opening an email sees first. */
export const firstDocument = (container: ContainerLayout): string | null => {
  for (const child of container.children) {
    if (!isContainer(child)) return child.documentId.id
    const nested = firstDocument(child)
    if (nested !== null) return nested
  }
  return null
}

export interface TextRun {
  readonly position: { readonly x: number; readonly y: number; readonly w: number; readonly h: number }
  readonly text: string
  /** Each character's advance along the run, in points (one per UTF-16 code unit group as the broker splits them). */
  readonly individualWidths: ReadonlyArray<number>
  readonly fontSize: number
  readonly paragraphId: number
  readonly rightToLeftText: boolean
  readonly rotation: number
}

export interface PageContent {
  readonly pageNumber: number
  readonly positionTextList: ReadonlyArray<TextRun>
}

export interface Rect {
  readonly x: number
  readonly y: number
  readonly w: number
  readonly h: number
}

export interface SearchHit {
  readonly pageNumber: number
  readonly text: string
  readonly rects: ReadonlyArray<Rect>
}

export interface SearchChunk {
  readonly pageCount: number
  readonly hits: ReadonlyArray<SearchHit>
}

export interface SearchOptions {
  readonly caseSensitive?: boolean
  readonly accentSensitive?: boolean
  readonly regex?: boolean
}

export interface Bookmark {
  readonly title: string
  readonly pageNumber: number | null
  readonly top: number | null
  readonly children: ReadonlyArray<Bookmark>
}

export interface DocumentState {
  readonly state: "ready" | "converting" | "failed"
  readonly reason?: string | null
  readonly conversion: null | {
    readonly currentState: string
    readonly queuedTime?: number | null
    readonly processingTime?: number | null
    readonly errorMessage?: string | null
  }
  readonly message: string | null
}

/** An answer other than 2xx, with the service's error body (`{_tag, message}`). */
export class ServiceError extends Error {
  constructor(readonly status: number, readonly tag: string, message: string, readonly reason?: string) {
    super(message)
  }
}

export type DownloadKind = "original" | "pdf"

/** The annotation creation policy, as the broker answers it (docs/annotations.md "Policy"). */
export interface AnnotationPolicy {
  readonly canCreateAnnotations: boolean
  readonly textAnnotationsSupportReply: boolean
  readonly textAnnotationsSupportStatus: boolean
  readonly annotationTemplateCatalog: {
    readonly annotationTemplates: ReadonlyArray<{
      readonly name: string
      readonly annotationType: string
      readonly contentTemplate: string
      readonly annotationStyle: { readonly fontColor: string; readonly fontSize: number; readonly rotation: number }
    }>
  }
  readonly annotationCreationRuleCatalog: {
    readonly annotationCreationRules: ReadonlyArray<{
      readonly ruleId: string
      readonly ruleName: string
      readonly annotationTemplate: { readonly annotationType: string }
      readonly searchOptions: { readonly searchText: string; readonly regex: boolean; readonly searchAction: string }
    }>
  }
  readonly availableRedactReasons: ReadonlyArray<
    { readonly symbolicName: string; readonly displayName: Readonly<Record<string, string>> }
  >
  readonly defaultRedactReasons: ReadonlyArray<string> | null
}

export interface AnnotationList {
  readonly annotations: ReadonlyArray<Annotation>
  /** Where they are kept: the broker, or the provider the document came from. */
  readonly store: "broker" | "provider"
}

/** An order the viewer service queued on a broker: what to poll it with. */
export interface OrderHandle {
  readonly kind: "transformation" | "comparison"
  readonly orderId: string
  /** The viewer ID of the document the order is asked about (it names the broker). */
  readonly uuid: string
}

export interface OrderStatus {
  readonly kind: OrderHandle["kind"]
  readonly orderId: string
  readonly state: "QUEUED" | "PROCESSING" | "PROCESSED" | "FAILED"
  readonly queuedTime: number | null
  readonly processingTime: number | null
  readonly error: string | null
  /** The result document's viewer ID once PROCESSED (the first, when there are several). */
  readonly result: string | null
  readonly results: ReadonlyArray<string>
}

/** Pages of a document taken into a transformation: 0-based ranges, both ends included; none = all. */
export interface TransformationPart {
  readonly uuid: string
  readonly pages?: ReadonlyArray<{ readonly from: number; readonly to: number }>
}

export interface ChangeSide {
  readonly text: string
  readonly pageNumber: number
  readonly rects: ReadonlyArray<Rect>
}

export interface TextChange {
  readonly type: "MODIFIED" | "DELETED" | "INSERTED"
  readonly left: ChangeSide | null
  readonly right: ChangeSide | null
}

export interface ComparedDocument {
  readonly uuid: string
  /** Null for a document without one (the service answers the broker's metadata). */
  readonly title: string | null
  readonly pageCount: number
}

export interface Difference {
  readonly left: ComparedDocument
  readonly right: ComparedDocument
  /** In the left document's reading order. */
  readonly changes: ReadonlyArray<TextChange>
}

export class ViewerClient {
  /** `service`: the servlets' base URL, e.g. `/viewergwt/` or `https://viewer.example/viewergwt/`. */
  constructor(readonly service: string) {}

  url(servlet: string, params: Readonly<Record<string, string | number | boolean | undefined>>): string {
    const base = this.service.endsWith("/") ? this.service : `${this.service}/`
    const query = new URLSearchParams()
    for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value))
    return new URL(`${base}${servlet}?${query}`, document.baseURI).href
  }

  private async fetchOk(url: string, init: RequestInit = {}): Promise<Response> {
    let response: Response
    try {
      response = await fetch(url, { credentials: "include", ...init })
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error
      // The browser says only "Failed to fetch": name the service and the usual cause.
      const origin = new URL(url).origin
      const crossOrigin = origin !== window.location.origin
      throw new ServiceError(
        0,
        "ServiceUnreachable",
        `The viewer service at ${origin} could not be reached (${(error as Error).message})` +
          (crossOrigin ? `; from another origin, ${window.location.origin} must be in its VIEWER_ALLOWED_ORIGINS` : "")
      )
    }
    if (response.ok) return response
    const text = await response.text()
    let tag = "HttpError"
    let message = text || response.statusText
    let reason: string | undefined
    try {
      const body = JSON.parse(text) as { _tag?: string; message?: string; reason?: string }
      tag = body._tag ?? tag
      message = body.message ?? message
      reason = body.reason
    } catch {
      // Not JSON: the text is the message.
    }
    throw new ServiceError(response.status, tag, message, reason)
  }

  private async json<A>(url: string, signal?: AbortSignal): Promise<A> {
    return (await this.fetchOk(url, signal ? { signal } : {})).json() as Promise<A>
  }

  /** A JSON route with a JSON body (`annotations`, `transformation`, …). */
  private async send<A>(method: string, url: string, body?: unknown): Promise<A> {
    const init: RequestInit = body === undefined
      ? { method }
      : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) }
    return (await this.fetchOk(url, init)).json() as Promise<A>
  }

  layout(uuid: string, signal?: AbortSignal): Promise<Layout> {
    return this.json(this.url("documentLayout", { uuid }), signal)
  }

  state(uuid: string, signal?: AbortSignal): Promise<DocumentState> {
    return this.json(this.url("documentState", { uuid }), signal)
  }

  pageContent(uuid: string, pageIndex: number, signal?: AbortSignal): Promise<PageContent> {
    return this.json(this.url("pageContent", { uuid, pagePosition: pageIndex }), signal)
  }

  bookmarks(uuid: string, signal?: AbortSignal): Promise<{ readonly bookmarks: ReadonlyArray<Bookmark> }> {
    return this.json(this.url("bookmarks", { uuid }), signal)
  }

  search(
    uuid: string,
    searchText: string,
    fromPage: number,
    toPage: number,
    options: SearchOptions,
    signal?: AbortSignal
  ): Promise<SearchChunk> {
    return this.json(
      this.url("search", {
        uuid,
        searchText,
        fromPage,
        toPage,
        caseSensitive: options.caseSensitive ?? false,
        accentSensitive: options.accentSensitive ?? false,
        regex: options.regex ?? false
      }),
      signal
    )
  }

  /**
   * The page `width` pixels wide; with `annotations` false, without the annotations the viewer draws
   * itself (those the annotations route lists), so none shows twice.
   */
  imageUrl(uuid: string, pageIndex: number, width: number, annotations = true): string {
    return this.url("imageServlet", {
      uuid,
      pagePosition: pageIndex,
      desc: width,
      annotations: annotations ? undefined : false
    })
  }

  /** A rectangle of the page drawn `width` pixels wide (cropImageServlet's descriptor, docs/viewer.md). */
  cropUrl(uuid: string, pageIndex: number, width: number, rect: Rect, locale: string, annotations = true): string {
    const desc = `width=${width};x=${rect.x};y=${rect.y};w=${rect.w};h=${rect.h}`
    return this.url("cropImageServlet", {
      uuid,
      pagePosition: pageIndex,
      desc,
      locale,
      annotations: annotations ? undefined : false
    })
  }

  /** An image as an object URL (the caller revokes it), cancelled with `signal`. */
  async image(url: string, signal: AbortSignal): Promise<string> {
    const response = await this.fetchOk(url, { signal })
    return URL.createObjectURL(await response.blob())
  }

  downloadUrl(uuid: string, kind: DownloadKind, title?: string): string {
    return this.url("downloadServlet", { uuid, type: kind === "pdf" ? "RENDERED" : "INITIAL", title })
  }

  printUrl(uuid: string, pageCount: number, renditionWidth: number, browserWidth: number): string {
    return this.url("printPage", {
      uuid,
      nbPages: pageCount,
      renditionPrintWidth: renditionWidth,
      browserPrintWidth: browserWidth,
      page: pageCount === 1 ? "0" : `0-${pageCount - 1}`
    })
  }

  // ---- Annotations (docs/viewer.md "The browser viewer's JSON routes") --------------------------

  annotations(uuid: string, signal?: AbortSignal): Promise<AnnotationList> {
    return this.json(this.url("annotations", { uuid }), signal)
  }

  annotationPolicy(uuid: string, signal?: AbortSignal): Promise<AnnotationPolicy> {
    return this.json(this.url("annotationPolicy", { uuid }), signal)
  }

  /** Creates annotations; answers them as kept (IDs, dates, author), in order. */
  async createAnnotations(uuid: string, annotations: ReadonlyArray<Annotation>): Promise<ReadonlyArray<Annotation>> {
    return (await this.send<AnnotationList>("POST", this.url("annotations", { uuid }), { annotations })).annotations
  }

  async updateAnnotations(uuid: string, annotations: ReadonlyArray<Annotation>): Promise<ReadonlyArray<Annotation>> {
    return (await this.send<AnnotationList>("PUT", this.url("annotations", { uuid }), { annotations })).annotations
  }

  async deleteAnnotations(uuid: string, ids: ReadonlyArray<string>): Promise<void> {
    await this.send("DELETE", this.url("annotations", { uuid }), { ids })
  }

  /** servletXFDFAnnotations: the document's annotations as an XFDF (or FDF) file. */
  annotationFileUrl(uuid: string, type: "XFDF" | "FDF" = "XFDF"): string {
    return this.url("servletXFDFAnnotations", { uuid, type })
  }

  /** Applies an XFDF or FDF file to the document. */
  async importAnnotationFile(uuid: string, file: Blob, name: string): Promise<void> {
    const form = new FormData()
    form.append("file", file, name)
    await this.fetchOk(this.url("servletXFDFAnnotations", { uuid }), { method: "POST", body: form })
  }

  /** The PDF with its annotations drawn in (`flatten`) or as objects other PDF software can edit. */
  annotatedDownloadUrl(uuid: string, flatten: boolean): string {
    return this.url("downloadDocumentWithAnnotations", {
      uuid,
      operationName: flatten ? "renderAnnotations" : "renderFDFAnnotations"
    })
  }

  // ---- Orders: new documents from pages, redactions applied, image comparisons ---------------

  /** One new document of the parts' pages, in order; with `redact`, their redaction marks applied. */
  transformation(
    parts: ReadonlyArray<TransformationPart>,
    options: { readonly title?: string; readonly redact?: boolean } = {}
  ): Promise<OrderHandle> {
    return this.send("POST", this.url("transformation", {}), { ...options, parts })
  }

  imageComparison(left: string, right: string): Promise<OrderHandle> {
    return this.send("POST", this.url("comparison", { left, right }))
  }

  /** The order's state; waits up to `waitMs` for it to end. */
  order(handle: OrderHandle, waitMs: number, signal?: AbortSignal): Promise<OrderStatus> {
    return this.json(
      this.url("order", { uuid: handle.uuid, kind: handle.kind, orderId: handle.orderId, waitMs }),
      signal
    )
  }

  async cancelOrder(handle: OrderHandle): Promise<void> {
    await this.fetchOk(
      this.url("order", { uuid: handle.uuid, kind: handle.kind, orderId: handle.orderId }),
      { method: "DELETE" }
    )
  }

  /** The text differences of two documents, each side's words as boxes. */
  difference(left: string, right: string, signal?: AbortSignal): Promise<Difference> {
    return this.json(this.url("difference", { left, right }), signal)
  }

  /** Uploads a file (uploadServlet); answers the new document's ID. */
  async upload(file: Blob, name: string): Promise<string> {
    const form = new FormData()
    form.append("file", file, name)
    return (await (await this.fetchOk(this.url("uploadServlet", {}), { method: "POST", body: form })).text()).trim()
  }

  /** Opens documents named by URL (or `loadingQuery?…`): one directly, several as a container. */
  async openUrls(urls: ReadonlyArray<string>, title: string | undefined): Promise<string> {
    if (urls.length === 1 && title === undefined) {
      return (await this.fetchOk(this.url("openExternalDocument", { url: urls[0] }))).text()
    }
    const body = JSON.stringify({
      ...(title === undefined ? {} : { title }),
      references: urls.map((queryUrl) => ({ queryUrl }))
    })
    const response = await this.fetchOk(this.url("compositeAccessorServlet", {}), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body
    })
    return (await response.text()).trim()
  }
}
