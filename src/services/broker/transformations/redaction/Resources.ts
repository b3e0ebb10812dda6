/**
 * A resource dictionary that is copied before it changes (the original may be shared with other
 * pages). Names whose drawing was removed leave the copy unless something still draws them: an
 * entry nothing draws would still carry the content into the file.
 */
import { type PDFContext, PDFDict, PDFName, type PDFObject, PDFRef } from "pdf-lib"

/** The resources of one content stream (a page's or a form's), as its scrubbing changes them. */
export class Resources {
  private copy: PDFDict | undefined
  private readonly copiedGroups = new Set<string>()
  /** Category → names still drawn, and names whose drawing was removed. */
  private readonly drawn = new Map<string, Set<string>>()
  private readonly removed = new Map<string, Set<string>>()
  constructor(private readonly ctx: PDFContext, private readonly original: PDFDict | undefined) {}

  lookup(category: string, name: string): PDFObject | undefined {
    const group = (this.copy ?? this.original)?.lookupMaybe(PDFName.of(category), PDFDict)
    return group === undefined ? undefined : this.ctx.lookup(group.get(PDFName.of(name)))
  }

  /** Records that the content still draws (`true`) or no longer draws (`false`) a named resource. */
  mark(category: string, name: string, drawn: boolean) {
    const names = drawn ? this.drawn : this.removed
    names.set(category, (names.get(category) ?? new Set()).add(name))
  }

  /** The XObjects named here, by reference. */
  xobjectRefs(): Array<PDFRef> {
    const group = (this.copy ?? this.original)?.lookupMaybe(PDFName.of("XObject"), PDFDict)
    return (group?.values() ?? []).filter((v): v is PDFRef => v instanceof PDFRef)
  }

  /** Adds an XObject under a new name and returns the name. */
  addXObject(object: PDFRef): string {
    const group = this.group("XObject")
    let n = group.keys().length
    while (group.has(PDFName.of(`Rdx${n}`))) n++
    group.set(PDFName.of(`Rdx${n}`), object)
    this.mark("XObject", `Rdx${n}`, true)
    return `Rdx${n}`
  }

  /** The changed copy, if anything changed, once the content using these resources has been scrubbed. */
  modified(): PDFDict | undefined {
    for (const [category, names] of this.removed) {
      for (const name of names) {
        if (this.drawn.get(category)?.has(name) !== true) this.group(category).delete(PDFName.of(name))
      }
    }
    this.removed.clear()
    return this.copy
  }

  private group(category: string): PDFDict {
    this.copy ??= this.original?.clone() ?? PDFDict.withContext(this.ctx)
    const existing = this.copy.lookupMaybe(PDFName.of(category), PDFDict)
    if (existing !== undefined && this.copiedGroups.has(category)) return existing
    const group = existing?.clone() ?? PDFDict.withContext(this.ctx)
    this.copy.set(PDFName.of(category), group)
    this.copiedGroups.add(category)
    return group
  }
}
