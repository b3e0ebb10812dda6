/** The formats the LibreOffice pool (OfficeConverter) converts. See docs/office-conversion.md. */

export type OfficeFormat =
  | "doc"
  | "docx"
  | "odt"
  | "rtf"
  | "xls"
  | "xlsx"
  | "ods"
  | "csv"
  | "ppt"
  | "pptx"
  | "odp"
  | "html"
  | "text"

interface FormatSpec {
  /** Extension of the link the blob is loaded through. */
  readonly extension: string
  /** Import filters tried in order (the first that accepts the file wins); never type detection. */
  readonly filters: ReadonlyArray<string>
  readonly filterOptions?: string
  /** For messages: "could not be read as …". */
  readonly label: string
}

/** Which LibreOffice import filter reads which format; the PDF export follows the kind of document loaded. */
export const OFFICE_FORMATS: Readonly<Record<OfficeFormat, FormatSpec>> = {
  doc: {
    extension: "doc",
    filters: ["MS Word 97", "MS Word 95", "MS WinWord 6.0", "Rich Text Format"],
    label: "a Word document (.doc)"
  },
  docx: { extension: "docx", filters: ["MS Word 2007 XML", "Office Open XML Text"], label: "a Word document (.docx)" },
  odt: { extension: "odt", filters: ["writer8"], label: "an OpenDocument text (.odt)" },
  rtf: { extension: "rtf", filters: ["Rich Text Format"], label: "an RTF document" },
  xls: {
    extension: "xls",
    filters: ["MS Excel 97", "MS Excel 95", "MS Excel 5.0/95", "MS Excel 4.0"],
    label: "an Excel workbook (.xls)"
  },
  xlsx: {
    extension: "xlsx",
    filters: ["Calc MS Excel 2007 XML", "Calc Office Open XML"],
    label: "an Excel workbook (.xlsx)"
  },
  ods: { extension: "ods", filters: ["calc8"], label: "an OpenDocument spreadsheet (.ods)" },
  // Comma separated, double quotes, UTF-8 (76), from line 1.
  csv: { extension: "csv", filters: ["Text - txt - csv (StarCalc)"], filterOptions: "44,34,76,1", label: "a CSV file" },
  ppt: { extension: "ppt", filters: ["MS PowerPoint 97"], label: "a PowerPoint presentation (.ppt)" },
  pptx: {
    extension: "pptx",
    filters: ["Impress MS PowerPoint 2007 XML", "Impress Office Open XML"],
    label: "a PowerPoint presentation (.pptx)"
  },
  odp: { extension: "odp", filters: ["impress8"], label: "an OpenDocument presentation (.odp)" },
  // Writer's HTML import (not Writer/Web), so the page paginates like a document.
  html: { extension: "html", filters: ["HTML (StarWriter)"], label: "an HTML page" },
  // UTF-8, monospace, in Writer's default page size.
  text: {
    extension: "txt",
    filters: ["Text (encoded)"],
    filterOptions: "UTF8,LF,Liberation Mono,en-US",
    label: "a text file"
  }
}
