/**
 * The plain text of XHTML rich text (XFDF `contents-richtext`, FDF and PDF /RC), as a viewer shows
 * it: what a reader keeps as an annotation's contents when a file has no plain /Contents.
 */
import { UnreadableAnnotationFile } from "./AnnotationFileInvalid.ts"
import { parseXml, type XmlElement } from "./Xml.ts"

const BLOCKS = new Set(["p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6"])

/** Plain text of a rich text element: paragraphs on lines of their own, <br/> a line break, spaces collapsed as XHTML shows them. */
export const plainTextOfElement = (element: XmlElement): string => {
  const lines: Array<string> = []
  let line = ""
  // A line break while spaces are collapsed: a character XML text never holds.
  const BREAK = "\u0000"
  const endLine = (block: boolean) => {
    const collapsed = line.replace(/[ \t\n\r]+/g, " ").replace(/ ?\u0000 ?/g, BREAK).trim().replaceAll(BREAK, "\n")
    if (block || collapsed !== "") lines.push(collapsed)
    line = ""
  }
  const visit = (node: XmlElement) => {
    for (const item of node.children) {
      if (typeof item === "string") line += item
      else if (item.name === "br") line += BREAK
      else if (BLOCKS.has(item.name)) {
        endLine(false)
        visit(item)
        endLine(true)
      } else visit(item)
    }
  }
  visit(element)
  endLine(false)
  while (lines[0] === "") lines.shift()
  while (lines.at(-1) === "") lines.pop()
  return lines.join("\n")
}

/** The text of an XHTML rich text string (/RC, contents-richtext); undefined when it is not readable. */
export const plainTextOfRichText = (xhtml: string): string | undefined => {
  try {
    return plainTextOfElement(parseXml(xhtml))
  } catch (error) {
    if (error instanceof UnreadableAnnotationFile) return undefined
    throw error
  }
}
