/**
 * Inside a PDF worker thread: the page PDFium loaded last, kept loaded until another is needed.
 * Loading a page parses its whole content stream, which a zoom, a tile of a large image or the
 * fonts read for the page's text would otherwise do again: measured outside the broker on
 * issue12810.pdf p1 (38,600 paths), loading took 60 ms of a 156 ms page at 1240 px.
 *
 * Why one page and not a cache of them: a loaded page also keeps the images it has drawn, decoded
 * at full size (PDFium's page image cache has no bound by default), and PDFium cannot say how much
 * that is without visiting every object (about 1 µs an object, two thirds of the page's load).
 * Measured in the broker's soak, pages kept within 16 MiB as weighed by their objects held 80-125
 * MiB more than none. One page holds nothing the drawing of it did not already need: the module's
 * memory, which never shrinks, grew to that when the page was drawn.
 */
import type { Pdfium } from "./Pdfium.ts"

/** The document a page belongs to, as far as loading and closing it goes. */
export interface PageOwner {
  /** The file's content hash, which names the document among the thread's open ones. */
  readonly key: string
  readonly document: number
  /** The form-fill environment, told when a page is loaded and before it is closed. */
  readonly form: number
}

interface LoadedPage {
  readonly owner: PageOwner
  readonly index: number
  readonly handle: number
}

export class PdfiumPages {
  private last: LoadedPage | undefined

  constructor(private readonly pdfium: Pdfium) {}

  /** Whether page `index` of the document is the one kept loaded. */
  has(owner: PageOwner, index: number) {
    return this.last !== undefined && this.last.owner.key === owner.key && this.last.index === index
  }

  /**
   * Runs `use` on page `index`: the kept page when it is that one, else loaded now (the kept one
   * closed first, so that no two are loaded at once) and kept afterwards. Synchronous, so no other
   * request of the thread sees the page in between.
   */
  use<A>(owner: PageOwner, index: number, use: (page: number) => A): A {
    if (!this.has(owner, index)) {
      this.closeLast()
      const handle = this.pdfium.FPDF_LoadPage(owner.document, index)
      if (handle === 0) throw new Error(`PDFium cannot load page ${index}`)
      this.pdfium.FORM_OnAfterLoadPage(handle, owner.form)
      this.last = { owner, index, handle }
    }
    return use(this.last!.handle)
  }

  /** Closes the kept page if it is one of the document's: before the document itself closes. */
  closeFor(owner: PageOwner) {
    if (this.last?.owner.key === owner.key) this.closeLast()
  }

  private closeLast() {
    const last = this.last
    if (last === undefined) return
    this.last = undefined
    try {
      this.pdfium.FORM_OnBeforeClosePage(last.handle, last.owner.form)
    } finally {
      this.pdfium.FPDF_ClosePage(last.handle)
    }
  }
}
