/**
 * Annotations inside PDF files (PdfAnnotations.ts), written and read back: every subtype comes back
 * field for field after a save and a load, pdf.js sees what was written (pop-ups, replies), a file's
 * annotation without /NM gets a stable name, and an Acrobat review state is the note's state. The
 * corpus files, the rendered appearances and turned pages are tested beside this file.
 */
import { describe, expect, it } from "@effect/vitest"
import { degrees, PDFDict, PDFDocument, PDFHexString, PDFName, PDFRef } from "pdf-lib"
import { readAnnotations } from "../../../src/services/broker/annotations/PdfAnnotationReader.ts"
import { writeAnnotations } from "../../../src/services/broker/annotations/PdfAnnotations.ts"
import { EVERY_SUBTYPE, expectSameColor, load, pdfjsAnnotations, save } from "./pdf-annotations-support.ts"

describe("PDF annotations", () => {
  it("gives back every subtype with all its fields, replies and state, after a save and a load", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage([612, 792])
    pdf.addPage([612, 792]).setRotation(degrees(90))
    const warnings = writeAnnotations(pdf, EVERY_SUBTYPE, "objects")
    // The note's Japanese contents stay in /Contents; only the Helvetica drawing of FreeText would
    // need replacements, and these FreeTexts are plain ASCII.
    expect(warnings).toEqual([])
    const again = await load(await save(pdf, "round-trip"))
    expect(readAnnotations(again)).toEqual(EVERY_SUBTYPE)
  })

  it("writes what pdf.js sees: the subtypes, pop-ups for notes, replies in reply to their note", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage([612, 792])
    pdf.addPage([612, 792]).setRotation(degrees(90))
    writeAnnotations(pdf, EVERY_SUBTYPE, "objects")
    const seen = await pdfjsAnnotations(await save(pdf, "pdfjs"))
    const kept = seen.filter((a) => a.subtype !== "Popup" && !a.inReplyTo)
    expect(kept.map((a) => [a.subtype, a.page])).toEqual(EVERY_SUBTYPE.map((a) => [a.subtype, a.page]))
    kept.forEach((a, i) => {
      const written = EVERY_SUBTYPE[i]!
      expect(a.rect.map((v) => Math.round(v))).toEqual([...written.rect])
      expectSameColor(written.color, a.color)
    })
    const note = kept.find((a) => a.subtype === "Text")!
    expect(seen.filter((a) => a.inReplyTo === note.id).map((a) => a.contentsObj?.str)).toEqual([
      "Yes, checked.",
      "Thanks (and a ) paren"
    ])
    expect(seen.filter((a) => a.subtype === "Popup")).toHaveLength(1)
    const freeText = kept.find((a) => a.subtype === "FreeText")!
    expect(freeText.defaultAppearanceData?.fontSize).toBe(14)
  })

  it("names an annotation without /NM after its page and object, the same way every time", async () => {
    const pdf = await PDFDocument.create()
    pdf.addPage()
    writeAnnotations(pdf, [{ subtype: "Square", page: 0, name: "temporary", rect: [10, 10, 50, 50] }], "objects")
    const ref = pdf.getPage(0).node.Annots()!.get(0) as PDFRef
    pdf.context.lookup(ref, PDFDict).delete(PDFName.of("NM"))
    const file = await save(pdf, "no-nm")
    const expected = `pdf-0-${ref.objectNumber}-${ref.generationNumber}`
    expect(readAnnotations(await load(file)).map((a) => a.name)).toEqual([expected])
    expect(readAnnotations(await load(file)).map((a) => a.name)).toEqual([expected])
  })

  it("reads an Acrobat review state as the note's state, not as a reply", async () => {
    const pdf = await PDFDocument.create()
    const page = pdf.addPage()
    writeAnnotations(pdf, [{
      subtype: "Text",
      page: 0,
      name: "note",
      rect: [10, 10, 30, 30],
      contents: "Please check"
    }], "objects")
    const noteRef = page.node.Annots()!.get(0) as PDFRef
    for (
      const [state, model, m] of [["Rejected", "Review", "D:20240101000000Z"], [
        "Accepted",
        "Review",
        "D:20240102000000Z"
      ], ["Marked", "Marked", "D:20240103000000Z"]]
    ) {
      const dict = pdf.context.obj({
        Type: "Annot",
        Subtype: "Text",
        Rect: [10, 10, 30, 30],
        IRT: noteRef,
        State: PDFHexString.fromText(state!),
        StateModel: PDFHexString.fromText(model!),
        M: PDFHexString.fromText(m!)
      })
      page.node.addAnnot(pdf.context.register(dict))
    }
    const [note, ...rest] = readAnnotations(await load(await save(pdf, "review-state")))
    expect(rest).toEqual([])
    expect(note).toMatchObject({ name: "note", state: "Accepted" })
    expect(note!.replies).toBeUndefined()
  })
})
