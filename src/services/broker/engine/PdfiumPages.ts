/**
 * Inside a PDF worker thread: the pages PDFium has loaded, kept between requests. Loading a page
 * parses its whole content stream, which a zoom, a tile of a large image, a thumbnail beside the
 * page or its text would otherwise do again: measured outside the broker on issue12810.pdf p1
 * (38,600 paths), loading took 60 ms of a 156 ms page at 1240 px; a page of text about 1 ms.
 *
 * Bounded by bytes (LOADED_PAGE_BYTES_PER_WORKER). PDFium cannot say what a page holds, so a page
 * is weighed from its objects: measured in the module's memory, 215 bytes an object on issue12810
 * (8.1 MB for the page) and at most 60 KB a page over 60 pages of the 400- and 619-page files.
 */
import { Lru } from "../../common/Lru.ts"
import type { Pdfium } from "./Pdfium.ts"

/** What a loaded page is taken to hold: this much, */
const PAGE_BYTES = 64 * 1024
/** and this much for each object on it (path, text, image, form XObject). */
const OBJECT_BYTES = 256

/** A page loaded in PDFium and told to the document's form-fill environment. */
export interface LoadedPage {
  readonly handle: number
  readonly weight: number
}

/** The document a page belongs to, as far as loading and closing it goes. */
export interface PageOwner {
  readonly key: string
  readonly document: number
  readonly form: number
}

export class PdfiumPages {
  private readonly kept: Lru<LoadedPage & { readonly owner: PageOwner; readonly index: number }>
  /** The indices kept for each document, so that closing one closes its pages first. */
  private readonly byOwner = new Map<string, Set<number>>()

  constructor(private readonly pdfium: Pdfium, capacity: number) {
    this.kept = new Lru(capacity, (page) => this.close(page.owner, page.index, page.handle), (page) => page.weight)
  }

  /** The bytes the kept pages are taken to hold. */
  get weight() {
    return this.kept.weight
  }

  has(owner: PageOwner, index: number) {
    return this.byOwner.get(owner.key)?.has(index) ?? false
  }

  /**
   * Runs `use` on page `index`, loaded now or kept from an earlier request, and keeps it afterwards
   * when it fits. The whole of it synchronous, so no other request of the thread sees the page
   * between.
   */
  use<A>(owner: PageOwner, index: number, use: (page: number) => A): A {
    const key = `${owner.key}#${index}`
    const kept = this.kept.get(key)
    const loaded = kept ?? this.load(owner, index)
    try {
      return use(loaded.handle)
    } finally {
      if (kept === undefined) {
        let indices = this.byOwner.get(owner.key)
        if (indices === undefined) this.byOwner.set(owner.key, indices = new Set())
        indices.add(index)
        this.kept.set(key, { ...loaded, owner, index })
      }
    }
  }

  /** Closes the document's kept pages: before the document itself closes. */
  closeAll(owner: PageOwner) {
    for (const index of [...this.byOwner.get(owner.key) ?? []]) {
      const key = `${owner.key}#${index}`
      const page = this.kept.get(key)
      this.kept.delete(key)
      if (page !== undefined) this.close(owner, index, page.handle)
    }
    this.byOwner.delete(owner.key)
  }

  private load(owner: PageOwner, index: number): LoadedPage {
    const handle = this.pdfium.FPDF_LoadPage(owner.document, index)
    if (handle === 0) throw new Error(`PDFium cannot load page ${index}`)
    this.pdfium.FORM_OnAfterLoadPage(handle, owner.form)
    return { handle, weight: PAGE_BYTES + OBJECT_BYTES * Math.max(0, this.pdfium.FPDFPage_CountObjects(handle)) }
  }

  private close(owner: PageOwner, index: number, handle: number) {
    const indices = this.byOwner.get(owner.key)
    indices?.delete(index)
    if (indices?.size === 0) this.byOwner.delete(owner.key)
    try {
      this.pdfium.FORM_OnBeforeClosePage(handle, owner.form)
    } finally {
      this.pdfium.FPDF_ClosePage(handle)
    }
  }
}
