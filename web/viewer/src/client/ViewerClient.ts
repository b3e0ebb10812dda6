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

  imageUrl(uuid: string, pageIndex: number, width: number): string {
    return this.url("imageServlet", { uuid, pagePosition: pageIndex, desc: width })
  }

  /** A rectangle of the page drawn `width` pixels wide (cropImageServlet's descriptor, docs/viewer.md). */
  cropUrl(uuid: string, pageIndex: number, width: number, rect: Rect, locale: string): string {
    const desc = `width=${width};x=${rect.x};y=${rect.y};w=${rect.w};h=${rect.h}`
    return this.url("cropImageServlet", { uuid, pagePosition: pageIndex, desc, locale })
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
