/**
 * The annotations of the document shown, with undo and redo. A change shows at once and is then
 * saved through the viewer service, one request after another in the order they were made; a
 * change the service refuses is taken back and the reason kept for the reader to see. Undo and redo
 * are changes like any other (an undone creation is a deletion, saved as one), so what the service
 * keeps always matches what the reader sees.
 */
import type { AnnotationPolicy, ViewerClient } from "../client/ViewerClient.ts"
import { type Annotation, boundsOf } from "./AnnotationModel.ts"

export type EditCommand =
  | { readonly kind: "create"; readonly annotations: ReadonlyArray<Annotation> }
  | { readonly kind: "remove"; readonly annotations: ReadonlyArray<Annotation> }
  | { readonly kind: "update"; readonly before: ReadonlyArray<Annotation>; readonly after: ReadonlyArray<Annotation> }

/** What a change did, told to the viewer (which tells the page's code: the `annotationchange` event). */
export interface StoreChange {
  readonly command: EditCommand | null
  /** "edit": the reader's change; "undo"/"redo"; "refused": taken back because the service refused it. */
  readonly cause: "load" | "edit" | "undo" | "redo" | "refused" | "saved" | "preview" | "select" | "report"
}

const inverse = (command: EditCommand): EditCommand => {
  switch (command.kind) {
    case "create":
      return { kind: "remove", annotations: command.annotations }
    case "remove":
      return { kind: "create", annotations: command.annotations }
    case "update":
      return { kind: "update", before: command.after, after: command.before }
  }
}

/** Most changes kept for undo: older ones are forgotten. */
const UNDO_DEPTH = 200

const byPlace = (a: Annotation, b: Annotation) => {
  if (a.page !== b.page) return a.page - b.page
  const ra = boundsOf(a)
  const rb = boundsOf(b)
  return ra.y - rb.y || ra.x - rb.x
}

export class AnnotationStore {
  private readonly items = new Map<string, Annotation>()
  /** Shown instead of the kept annotation while it is dragged; never saved as such. */
  private readonly drafts = new Map<string, Annotation>()
  private pages: Map<number, ReadonlyArray<Annotation>> | null = null
  private undoStack: Array<EditCommand> = []
  private redoStack: Array<EditCommand> = []
  /** IDs the service replaced (a provider names what it keeps): old → new, for requests already queued. */
  private readonly renamed = new Map<string, string>()
  private saving: Promise<void> = Promise.resolve()
  private pendingSaves = 0
  /** Per annotation ID, the changes to it queued and not yet answered. */
  private readonly waiting = new Map<string, number>()

  policy: AnnotationPolicy | null = null
  source: "broker" | "provider" | null = null
  state: "loading" | "ready" | "failed" = "loading"
  /** Why the last change could not be saved (or the annotations not read); null when all is well. */
  error: string | null = null
  /** What the last thing done beyond editing came to (an import), said until the next change. */
  notice: string | null = null
  selected: string | null = null
  /** Bumped on every change: a cheap way for lit to see that something changed. */
  version = 0

  constructor(
    private readonly client: ViewerClient,
    readonly uuid: string,
    /** The name written as the author of new annotations (the service may put the signed-in user's). */
    private readonly author: () => string,
    private readonly listener: (change: StoreChange) => void
  ) {}

  /** Reads the document's annotations and its creation policy. */
  async load(signal: AbortSignal) {
    try {
      const [list, policy] = await Promise.all([
        this.client.annotations(this.uuid, signal),
        this.client.annotationPolicy(this.uuid, signal)
      ])
      if (signal.aborted) return
      this.items.clear()
      for (const a of list.annotations) this.items.set(a.id, a)
      this.source = list.store
      this.policy = policy
      this.state = "ready"
    } catch (error) {
      if (signal.aborted) return
      this.state = "failed"
      this.error = (error as Error).message
    }
    this.changed({ command: null, cause: "load" })
  }

  /** Read-only: the policy forbids creating annotations, or they could not be read. */
  get readOnly() {
    return this.state !== "ready" || this.policy?.canCreateAnnotations === false
  }

  get saved() {
    return this.pendingSaves === 0
  }

  get(id: string): Annotation | undefined {
    return this.drafts.get(id) ?? this.items.get(id)
  }

  /** Every annotation, in page order, then from the top. */
  all(): ReadonlyArray<Annotation> {
    return [...this.items.values()].map((a) => this.drafts.get(a.id) ?? a).sort(byPlace)
  }

  /** The annotations drawn on page `index` (hidden ones left out), a dragged one as it is dragged. */
  onPage(index: number): ReadonlyArray<Annotation> {
    if (this.pages === null) {
      const pages = new Map<number, Array<Annotation>>()
      for (const kept of this.items.values()) {
        const a = this.drafts.get(kept.id) ?? kept
        if (a.flags?.hidden) continue
        const list = pages.get(a.page)
        if (list) list.push(a)
        else pages.set(a.page, [a])
      }
      this.pages = pages
    }
    return this.pages.get(index) ?? NONE
  }

  get canUndo() {
    return this.undoStack.length > 0 && !this.readOnly
  }

  get canRedo() {
    return this.redoStack.length > 0 && !this.readOnly
  }

  /** Says how something done to the annotations as a whole went (an import): a failure, or a notice. */
  report(outcome: { readonly error: string } | { readonly notice: string }) {
    if ("error" in outcome) this.error = outcome.error
    else this.notice = outcome.notice
    this.changed({ command: null, cause: "report" })
  }

  select(id: string | null) {
    if (this.selected === id) return
    this.selected = id
    this.changed({ command: null, cause: "select" })
  }

  create(annotations: ReadonlyArray<Annotation>) {
    const now = new Date().toISOString()
    const author = this.author()
    const made = annotations.map((a) => ({
      ...a,
      creator: a.creator ?? author,
      date: now,
      creationDate: now,
      origin: "store" as const
    }))
    this.edit({ kind: "create", annotations: made })
    return made
  }

  /** Replaces annotations (by ID) with `after`. */
  update(after: ReadonlyArray<Annotation>) {
    const now = new Date().toISOString()
    const before = after.map((a) => this.items.get(a.id)).filter((a) => a !== undefined)
    if (before.length !== after.length) return
    this.edit({ kind: "update", before, after: after.map((a) => ({ ...a, date: now })) })
  }

  remove(ids: ReadonlyArray<string>) {
    const annotations = ids.map((id) => this.items.get(id)).filter((a) => a !== undefined)
    if (annotations.length > 0) this.edit({ kind: "remove", annotations })
  }

  /** Shows `a` in place of the kept annotation of its ID (while it is dragged), without saving it. */
  preview(a: Annotation | null, id?: string) {
    if (a === null) {
      if (id !== undefined) this.drafts.delete(id)
      else this.drafts.clear()
    } else {
      this.drafts.set(a.id, a)
    }
    this.changed({ command: null, cause: "preview" })
  }

  undo() {
    const command = this.undoStack.pop()
    if (command === undefined || this.readOnly) return
    this.redoStack.push(command)
    this.apply(inverse(command), "undo")
  }

  redo() {
    const command = this.redoStack.pop()
    if (command === undefined || this.readOnly) return
    this.undoStack.push(command)
    this.apply(command, "redo")
  }

  /** Waits until every change made so far is saved (or refused). */
  whenSaved(): Promise<void> {
    return this.saving
  }

  private edit(command: EditCommand) {
    if (this.readOnly) return
    this.undoStack.push(command)
    if (this.undoStack.length > UNDO_DEPTH) this.undoStack.shift()
    this.redoStack = []
    this.apply(command, "edit")
  }

  private apply(command: EditCommand, cause: "edit" | "undo" | "redo") {
    this.applyLocally(command)
    this.error = null
    this.notice = null
    this.changed({ command, cause })
    this.pendingSaves++
    const ids = idsOf(command)
    for (const id of ids) this.waiting.set(id, (this.waiting.get(id) ?? 0) + 1)
    this.saving = this.saving.then(() => this.save(command, cause, ids))
  }

  private applyLocally(command: EditCommand) {
    switch (command.kind) {
      case "create":
        for (const a of command.annotations) this.items.set(a.id, a)
        break
      case "update":
        for (const a of command.after) this.items.set(a.id, a)
        break
      case "remove":
        for (const a of command.annotations) {
          this.items.delete(a.id)
          if (this.selected === a.id) this.selected = null
        }
    }
    for (const a of command.kind === "update" ? command.after : command.annotations) this.drafts.delete(a.id)
  }

  private async save(command: EditCommand, cause: "edit" | "undo" | "redo", ids: ReadonlyArray<string>) {
    let done = false
    const answered = () => {
      if (done) return
      done = true
      for (const id of ids) {
        const left = (this.waiting.get(id) ?? 1) - 1
        if (left > 0) this.waiting.set(id, left)
        else this.waiting.delete(id)
      }
    }
    const current = (a: Annotation) => {
      const id = this.currentId(a.id)
      return id === a.id ? a : { ...a, id }
    }
    try {
      switch (command.kind) {
        case "create": {
          const sent = command.annotations.map(current)
          const kept = await this.client.createAnnotations(this.uuid, sent)
          answered()
          kept.forEach((a, index) => this.keep(sent[index]!.id, a))
          break
        }
        case "update": {
          const sent = command.after.map(current)
          const kept = await this.client.updateAnnotations(this.uuid, sent)
          answered()
          kept.forEach((a, index) => this.keep(sent[index]!.id, a))
          break
        }
        case "remove":
          await this.client.deleteAnnotations(this.uuid, command.annotations.map((a) => current(a).id))
          answered()
      }
      this.pendingSaves--
      this.changed({ command, cause: "saved" })
    } catch (error) {
      this.pendingSaves--
      answered()
      // Taken back, so the page shows what is kept; the reason stays for the reader.
      this.applyLocally(inverse(command))
      const stack = cause === "undo" ? this.redoStack : this.undoStack
      const at = stack.lastIndexOf(command)
      if (at >= 0) stack.splice(at, 1)
      this.error = (error as Error).message
      this.changed({ command: inverse(command), cause: "refused" })
    }
  }

  /** The ID an annotation has now, after the renamings since a request naming `id` was queued. */
  private currentId(id: string) {
    let current = id
    for (let next = this.renamed.get(current); next !== undefined; next = this.renamed.get(current)) current = next
    return current
  }

  /**
   * What the service kept for the annotation sent as `sentId`: a new ID is taken at once; its other
   * fields (dates, author) replace ours unless the reader changed the annotation again meanwhile.
   */
  private keep(sentId: string, kept: Annotation) {
    if (kept.id !== sentId) {
      this.renamed.set(sentId, kept.id)
      this.rename(sentId, kept.id)
    }
    const shown = this.items.get(kept.id)
    if (shown !== undefined && !this.changedSince(kept.id)) this.items.set(kept.id, { ...shown, ...kept })
  }

  /** Whether a later change to the annotation is still waiting to be saved (this answer is stale then). */
  private changedSince(id: string) {
    return (this.waiting.get(this.currentId(id)) ?? 0) + (this.waiting.get(id) ?? 0) > 0
  }

  /** A new ID for an annotation, everywhere it is named: the list, the selection, undo and redo. */
  private rename(from: string, to: string) {
    const a = this.items.get(from)
    if (a !== undefined) {
      this.items.delete(from)
      this.items.set(to, { ...a, id: to })
    }
    if (this.selected === from) this.selected = to
    const fix = (list: ReadonlyArray<Annotation>) => list.map((x) => (x.id === from ? { ...x, id: to } : x))
    const fixCommand = (c: EditCommand): EditCommand =>
      c.kind === "update"
        ? { kind: "update", before: fix(c.before), after: fix(c.after) }
        : { kind: c.kind, annotations: fix(c.annotations) }
    this.undoStack = this.undoStack.map(fixCommand)
    this.redoStack = this.redoStack.map(fixCommand)
  }

  private changed(change: StoreChange) {
    this.pages = null
    this.version++
    this.listener(change)
  }
}

const NONE: ReadonlyArray<Annotation> = []

const idsOf = (command: EditCommand) =>
  (command.kind === "update" ? command.after : command.annotations).map((a) => a.id)
