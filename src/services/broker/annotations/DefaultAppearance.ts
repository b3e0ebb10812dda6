/**
 * How the annotation files and PDF dictionaries write text style and colour: the default
 * appearance string (/DA, XFDF `defaultappearance`: `/Helv 12 Tf 0 0 1 rg`) and the default style
 * string (/DS, XFDF `defaultstyle`: CSS) that carry a font size and a text colour, colours as PDF
 * colour arrays and as XFDF's #RRGGBB, and numbers as PDF and XFDF write them.
 */
import { clamp01, type PdfColor } from "./PdfAnnotation.ts"

/** A number as PDF and XFDF write it: shortest round-tripping decimal, never exponent notation. */
export const formatNumber = (value: number): string => {
  if (!Number.isFinite(value)) return "0"
  const text = String(Object.is(value, -0) ? 0 : value)
  if (!/e/i.test(text)) return text
  return value.toFixed(20).replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, "")
}

/** RGB from the 1, 3 or 4 components of a PDF colour array (gray, RGB, CMYK); undefined otherwise. */
export const colorFromComponents = (components: ReadonlyArray<number>): PdfColor | undefined => {
  if (components.length === 1) {
    const [g = 0] = components
    return [g, g, g]
  }
  if (components.length === 3) {
    const [r = 0, g = 0, b = 0] = components
    return [r, g, b]
  }
  if (components.length === 4) {
    const [c = 0, m = 0, y = 0, k = 0] = components
    return [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)]
  }
  return undefined
}

/** A colour as XFDF writes it: #RRGGBB. */
export const hexColor = (color: PdfColor): string =>
  "#" +
  color.map((component) => Math.round(clamp01(component) * 255).toString(16).padStart(2, "0").toUpperCase()).join("")

/** A #RRGGBB colour; undefined when the value is not one. */
export const colorFromHex = (value: string | undefined): PdfColor | undefined => {
  const match = value === undefined ? null : /^\s*#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})\s*$/i.exec(value)
  if (match === null) return undefined
  return [parseInt(match[1] ?? "0", 16) / 255, parseInt(match[2] ?? "0", 16) / 255, parseInt(match[3] ?? "0", 16) / 255]
}

const APPEARANCE_OPERATORS: Readonly<Record<string, number>> = { Tf: 1, rg: 3, RG: 3, g: 1, G: 1, k: 4, K: 4 }

/**
 * Font size and text colour from a default appearance string (`/Helv 12 Tf 0 0 1 rg`: the size of
 * Tf, the fill colour of rg, g or k, else the stroke colour) and, for what it lacks, from a default
 * style string (`font: Helvetica 12pt; color:#0000FF`). A Tf size of 0 (auto) is no size.
 */
export const parseAppearance = (
  da: string | undefined,
  ds: string | undefined
): { fontSize?: number; fontColor?: PdfColor } => {
  let fontSize: number | undefined
  let fill: PdfColor | undefined
  let stroke: PdfColor | undefined
  if (da !== undefined) {
    const tokens = da.trim().split(/\s+/)
    const operands = (index: number, count: number): Array<number> | undefined => {
      if (index < count) return undefined
      const values = tokens.slice(index - count, index).map(Number)
      return values.every(Number.isFinite) ? values : undefined
    }
    tokens.forEach((token, index) => {
      const arity = APPEARANCE_OPERATORS[token]
      if (arity === undefined) return
      const values = operands(index, arity)
      if (values === undefined) return
      if (token === "Tf") {
        const [size = 0] = values
        if (size > 0) fontSize = size
      } else if (token === token.toLowerCase()) fill = colorFromComponents(values)
      else stroke = colorFromComponents(values)
    })
  }
  let fontColor = fill ?? stroke
  if (ds !== undefined) {
    if (fontSize === undefined) {
      const size = /(?:^|[;\s])font-size\s*:\s*(\d+(?:\.\d+)?)\s*pt/i.exec(ds) ??
        /(?:^|[;\s])font\s*:[^;]*?(\d+(?:\.\d+)?)\s*pt/i.exec(ds)
      const value = Number(size?.[1])
      if (Number.isFinite(value) && value > 0) fontSize = value
    }
    if (fontColor === undefined) fontColor = colorFromHex(/(?:^|[;\s])color\s*:\s*(#[0-9a-f]{6})/i.exec(ds)?.[1])
  }
  return { ...(fontSize !== undefined ? { fontSize } : {}), ...(fontColor !== undefined ? { fontColor } : {}) }
}

/** The default appearance string for a font size and text colour (Helvetica; size 0 when none). */
export const formatAppearance = (fontSize: number | undefined, fontColor: PdfColor | undefined): string =>
  `/Helv ${formatNumber(fontSize ?? 0)} Tf` +
  (fontColor === undefined ? "" : ` ${fontColor.map(formatNumber).join(" ")} rg`)

/** The default style string (CSS) Acrobat reads for FreeText. */
export const formatDefaultStyle = (fontSize: number | undefined, fontColor: PdfColor | undefined): string =>
  [
    ...(fontSize !== undefined ? [`font: Helvetica,sans-serif ${formatNumber(fontSize)}pt`] : []),
    ...(fontColor !== undefined ? [`color:${hexColor(fontColor)}`] : [])
  ].join("; ")
