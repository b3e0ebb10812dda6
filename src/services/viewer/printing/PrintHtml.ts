/**
 * The HTML of printServlet (a preview that asks before printing) and printPage (the pages alone,
 * printing themselves). Page images come from the viewer's own imageServlet by relative URLs, so
 * the browser talks only to the viewer, under whatever base path it is served (docs/viewer.md
 * "Printing").
 */
import { html, htmlPage } from "../monitoring/HtmlPage.ts"
import type { PrintStyle } from "./PrintRequest.ts"

/** One page to print: its zero-based position, image URL and the image's size in pixels. */
export interface PrintSheet {
  readonly page: number
  readonly src: string
  readonly width: number
  readonly height: number
}

const SCREEN = `
@media screen {
  body { background: #e6e6e6; margin: 0; font: 15px/1.4 system-ui, sans-serif; }
  .toolbar { position: sticky; top: 0; display: flex; gap: 1em; align-items: center; padding: .6em 1.2em;
    background: #2b2b2b; color: #fff; z-index: 1; }
  .toolbar h1 { font-size: 1em; margin: 0; font-weight: 600; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .toolbar button { font: inherit; padding: .3em 1em; cursor: pointer; }
  main { padding: 1.5em; }
  .sheet { background: #fff; margin: 0 auto 1.5em; padding: 1em; box-shadow: 0 1px 4px rgba(0,0,0,.3); max-width: 60em; }
  .label { text-align: center; color: #555; font-size: .85em; margin-top: .4em; }
}
@media print {
  .toolbar, .label { display: none; }
  body, main { margin: 0; padding: 0; }
  .sheet { break-after: page; }
  .sheet:last-child { break-after: auto; }
}
img { display: block; margin: 0 auto; }
`

/** Each style's layout of a page on its sheet. */
const STYLES: Record<PrintStyle, string> = {
  // One sheet per page, the whole page on it: scaled down to the sheet's width and height.
  "fit-page": `
.sheet { display: flex; flex-direction: column; align-items: center; justify-content: center; box-sizing: border-box; }
img { max-width: 100%; height: auto; object-fit: contain; }
@media screen { .sheet { height: 85vh; } img { max-height: calc(100% - 1.6em); width: auto; } }
@media print { @page { margin: 10mm; } .sheet { height: 100vh; page-break-inside: avoid; } img { max-height: 100%; width: auto; } }
`,
  // The sheet's width filled; a tall page runs onto the next sheet.
  "fit-width": `img { width: 100%; height: auto; } @media print { @page { margin: 10mm; } }`,
  // One image pixel per CSS pixel, cut by the sheet's edge if larger.
  "actual": `img { max-width: none; } .sheet { overflow: visible; } @media print { @page { margin: 10mm; } }`
}

const images = (sheets: ReadonlyArray<PrintSheet>, pageCount: number) =>
  sheets.map((sheet) =>
    html`<section class="sheet"><img src="${sheet.src}" width="${sheet.width}" height="${sheet.height}" alt="Page ${
      sheet.page + 1
    }"><div class="label">Page ${sheet.page + 1} of ${pageCount}</div></section>\n`
  )

const plural = (n: number) => `${n} page${n === 1 ? "" : "s"}`

/** printServlet: the pages, and once their images are in, "Print N pages?" then the print dialog. */
export const previewHtml = (title: string, pageCount: number, sheets: ReadonlyArray<PrintSheet>, style: PrintStyle) =>
  htmlPage(
    `Print ${title}`,
    SCREEN + STYLES[style],
    html`<div class="toolbar"><h1>${title} — ${
      plural(sheets.length)
    } to print</h1><button type="button" id="print">Print…</button></div>
<main>
${images(sheets, pageCount)}</main>`,
    // JSON of our own text: a number and fixed words, nothing from the request.
    `const question = ${JSON.stringify(`Print ${plural(sheets.length)}?`)};
document.getElementById("print").addEventListener("click", () => window.print());
window.addEventListener("load", () => { if (window.confirm(question)) window.print(); });`
  )

/**
 * printPage: the pages drawn at `renditionPrintWidth` pixels and shown `browserPrintWidth` CSS pixels
 * wide, one per sheet, without margins (the caller's widths decide the layout); prints itself
 * once every image is in.
 */
export const printPagesHtml = (title: string, sheets: ReadonlyArray<PrintSheet>, browserWidth: number) =>
  htmlPage(
    title,
    `@page { margin: 0; }
body { margin: 0; }
.page { break-after: page; }
.page:last-child { break-after: auto; }
img { display: block; margin: 0 auto; width: ${browserWidth}px; height: auto; }`,
    html`${
      sheets.map((sheet) =>
        html`<div class="page"><img src="${sheet.src}" width="${sheet.width}" height="${sheet.height}" alt="Page ${
          sheet.page + 1
        }"></div>\n`
      )
    }`,
    `window.addEventListener("load", () => window.print());`
  )
