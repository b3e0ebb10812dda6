/** Positioned text runs as the PDF engine reports them, for tests of what is computed from them. */
import { Rect, TextPosition } from "../../src/schemas/broker/Content.ts"

/** A horizontal run of `text` at (x, y), each character `charWidth` wide and 10 high. */
export const textRun = (
  text: string,
  x: number,
  y: number,
  options: { readonly page?: number; readonly charWidth?: number } = {}
) => {
  const charWidth = options.charWidth ?? 5
  return new TextPosition({
    pageNumber: options.page ?? 0,
    position: new Rect({ x, y, w: Array.from(text).length * charWidth, h: 10 }),
    text,
    individualWidths: Array.from(text, () => charWidth),
    fontSize: 10,
    font: "Helvetica",
    clickableDestination: null,
    paragraphId: 0,
    rightToLeftText: false,
    rotation: 0
  })
}
