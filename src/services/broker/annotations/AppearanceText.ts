/**
 * Text in appearance streams: what a font can show of a text (the rest replaced, and reported) and
 * how a text breaks into lines that fit a width.
 */

/** What the appearances need from a font (pdf-lib's PDFFont has all of it). */
export interface AppearanceFont {
  /** The Unicode code points the font's encoding can show. */
  getCharacterSet(): ReadonlyArray<number>
  widthOfTextAtSize(text: string, size: number): number
  /** The text as a hex string operand (`<…>`); only called with characters of the character set. */
  encodeText(text: string): { toString(): string }
}

/** The characters of `text` a font cannot show, replaced: by their base letter when decomposing finds one the font has, else by "?". */
export const encodable = (
  font: AppearanceFont,
  text: string
): { readonly text: string; readonly replaced: ReadonlyArray<string> } => {
  const known = characterSet(font)
  const replaced: Array<string> = []
  let out = ""
  for (const ch of text) {
    if (ch === "\t") {
      out += " "
      continue
    }
    if (known.has(ch.codePointAt(0)!)) {
      out += ch
      continue
    }
    const base = ch.normalize("NFKD").replace(/\p{M}/gu, "")
    if (base.length > 0 && [...base].every((c) => known.has(c.codePointAt(0)!))) out += base
    else out += "?"
    replaced.push(ch)
  }
  return { text: out, replaced }
}

/** Each font's character set as a set, built once per font rather than once per text. */
const characterSets = new WeakMap<AppearanceFont, ReadonlySet<number>>()
const characterSet = (font: AppearanceFont): ReadonlySet<number> => {
  let set = characterSets.get(font)
  if (!set) {
    set = new Set(font.getCharacterSet())
    characterSets.set(font, set)
  }
  return set
}

/** Lines of `text` at `size` that fit `width`, breaking at spaces and, for words longer than a line, inside words. */
export const wrapText = (font: AppearanceFont, text: string, size: number, width: number): Array<string> => {
  const lines: Array<string> = []
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    let line = ""
    for (const word of paragraph.split(" ")) {
      const candidate = line === "" ? word : `${line} ${word}`
      if (fits(candidate)) {
        line = candidate
        continue
      }
      if (line !== "") lines.push(line)
      line = ""
      // The word alone: break it where it must.
      let rest = word
      while (rest !== "" && !fits(rest)) {
        let cut = 1
        const chars = [...rest]
        while (cut < chars.length && fits(chars.slice(0, cut + 1).join(""))) cut++
        lines.push(chars.slice(0, cut).join(""))
        rest = chars.slice(cut).join("")
      }
      line = rest
    }
    lines.push(line)
  }
  return lines
}
