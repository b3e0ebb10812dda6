/**
 * The text layer of a page: one transparent span per text run of pageContent, laid exactly over the
 * words of the image, so that text can be selected, copied and read by screen readers. Spans are
 * placed in points and the layer is scaled as a whole, so a zoom never rebuilds it.
 */
import type { TextRun } from "../client/ViewerClient.ts"

/** The family spans are measured and drawn in; any will do, as each span is stretched to its run. */
const FONT_FAMILY = "sans-serif"
/** Runs are measured at this size and scaled, as canvas measurement is exact enough there. */
const MEASURE_SIZE = 100

let measuringContext: CanvasRenderingContext2D | null = null
const measure = (text: string) => {
  measuringContext ??= document.createElement("canvas").getContext("2d")
  if (measuringContext === null) return text.length * MEASURE_SIZE * 0.5
  measuringContext.font = `${MEASURE_SIZE}px ${FONT_FAMILY}`
  return measuringContext.measureText(text).width
}

/**
 * Where a run's span starts and how it turns: a run turned 90° reads downwards with the tops of its
 * letters to the right, so its baseline origin is the box's top right corner.
 */
const placement = (run: TextRun) => {
  const { x, y, w, h } = run.position
  switch (((run.rotation % 360) + 360) % 360) {
    case 90:
      return { left: x + w, top: y, length: h, size: w, turn: 90 }
    case 180:
      return { left: x + w, top: y + h, length: w, size: h, turn: 180 }
    case 270:
      return { left: x, top: y + h, length: h, size: w, turn: 270 }
    default:
      return { left: x, top: y, length: w, size: h, turn: 0 }
  }
}

/** The run each span of a text layer shows: selections are turned back into exact glyph boxes from it. */
const spanRuns = new WeakMap<Node, TextRun>()
export const runOf = (span: Node): TextRun | undefined => spanRuns.get(span)

/** Fills `layer` with the runs' spans; a line break between lines keeps copied text in lines. */
export const fillTextLayer = (layer: HTMLElement, runs: ReadonlyArray<TextRun>) => {
  const fragment = document.createDocumentFragment()
  let previous: TextRun | undefined
  for (const run of runs) {
    if (run.text.trim() === "" || run.position.w <= 0 || run.position.h <= 0) continue
    if (previous !== undefined) {
      const sameLine = Math.abs(previous.position.y - run.position.y) < previous.position.h / 2
      fragment.append(sameLine ? document.createTextNode(" ") : document.createElement("br"))
    }
    const { left, top, length, size, turn } = placement(run)
    // The run's own font size, its glyphs centred in a line as tall as its box: the box runs from the
    // font's ascent to its descent, taller than the size, and a span of the box's size sits too low.
    const fontSize = run.fontSize > 0 && run.fontSize <= size ? run.fontSize : size * 0.85
    const span = document.createElement("span")
    span.textContent = run.text
    spanRuns.set(span, run)
    if (run.rightToLeftText) span.dir = "rtl"
    const stretch = length / ((measure(run.text) * fontSize) / MEASURE_SIZE)
    span.style.cssText = `left:${left}px;top:${top}px;font-size:${fontSize}px;line-height:${size}px;` +
      `transform:rotate(${turn}deg) scaleX(${Number.isFinite(stretch) ? stretch : 1})`
    fragment.append(span)
    previous = run
  }
  layer.replaceChildren(fragment)
}
