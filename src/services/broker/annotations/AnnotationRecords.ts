/**
 * The common ground of the annotation files, XFDF (Xfdf.ts) and FDF (Fdf.ts): one record per
 * annotation element or dictionary, and how records become the model's annotations and back, so
 * that both formats agree on what an annotation file means:
 * - a reply is a Text annotation in reply to its parent (replies to replies are kept on the first
 *   annotation of the thread; a reply of type Group is not a reply);
 * - a review state is, as PDF 32000-1 12.5.6.3 and Acrobat have it, a hidden Text annotation in
 *   reply to the annotation, carrying State and StateModel; the latest one gives the annotation its
 *   `state`. A state written on the annotation itself is read too.
 */
import { unreadable } from "./AnnotationFileInvalid.ts"
import type { PdfAnnotation, PdfAnnotationSubtype, PdfPoint, PdfRect, PdfReply } from "./PdfAnnotation.ts"

/** At most this many annotations (replies and review states included) in one file. */
export const MAX_ANNOTATIONS = 100_000

/** What an annotation carries besides its identity, place and thread. */
export type AnnotationDetails = Omit<PdfAnnotation, "subtype" | "page" | "name" | "rect" | "state" | "replies">

export type MutableDetails = { -readonly [K in keyof AnnotationDetails]?: AnnotationDetails[K] }

/** Sets `key` only when there is a value (exactOptionalPropertyTypes: absent, never undefined). */
export const put = <K extends keyof AnnotationDetails>(
  details: MutableDetails,
  key: K,
  value: AnnotationDetails[K] | undefined
): void => {
  if (value !== undefined) details[key] = value
}

/**
 * One annotation dictionary or element of a file, before replies are threaded: the common ground
 * of the XFDF and FDF readers and writers.
 */
export interface AnnotationRecord {
  /** Unique within the file (an index, an object reference). */
  readonly key: string
  readonly subtype: PdfAnnotationSubtype
  readonly name: string | undefined
  readonly page: number | undefined
  readonly rect: PdfRect | undefined
  readonly details: AnnotationDetails
  readonly state: string | undefined
  readonly stateModel: string | undefined
  /** The key of the record this one is in reply to. */
  readonly inReplyTo: string | undefined
  /** R (reply, the default) or Group. */
  readonly replyType: string | undefined
}

/** Flags of the replies and state notes written: print, nozoom, norotate (+ hidden for states), as Acrobat writes them. */
const REPLY_FLAGS = (1 << 2) | (1 << 3) | (1 << 4)
const STATE_FLAGS = REPLY_FLAGS | (1 << 1)

const isMarkedState = (state: string) => /^(un)?marked$/i.test(state)

/** Review (the default) or Marked, from the state model given or, when none is, from the state. */
const stateModelOf = (record: AnnotationRecord): "review" | "marked" | "other" => {
  const model = record.stateModel?.trim().toLowerCase()
  if (model === undefined || model === "") {
    return record.state !== undefined && isMarkedState(record.state)
      ? "marked"
      : "review"
  }
  return model === "review" ? "review" : model === "marked" ? "marked" : "other"
}

/**
 * Threads the records of a file into annotations: replies onto the first annotation of their
 * thread, review states folded into `state` (the latest Review-model state, else the latest
 * Marked-model one), everything else kept as an annotation of its own, which must then have a page
 * and a rectangle. Names missing from the file are generated (`annotation-<n>`, n its position).
 */
export const assembleAnnotations = (records: ReadonlyArray<AnnotationRecord>, format: string): Array<PdfAnnotation> => {
  if (records.length > MAX_ANNOTATIONS) unreadable(`${format} holds more than ${MAX_ANNOTATIONS} annotations`)
  const byKey = new Map<string, AnnotationRecord>()
  for (const record of records) if (!byKey.has(record.key)) byKey.set(record.key, record)

  const used = new Set<string>()
  for (const record of records) if (record.name !== undefined) used.add(record.name)
  const names = new Map<string, string>()
  records.forEach((record, index) => {
    if (record.name !== undefined) return names.set(record.key, record.name)
    let candidate = `annotation-${index + 1}`
    for (let n = 2; used.has(candidate); n++) candidate = `annotation-${index + 1}-${n}`
    used.add(candidate)
    names.set(record.key, candidate)
  })

  /** A Text annotation in reply (not a group member) to another: a reply or a review state. */
  const answers = (record: AnnotationRecord): record is AnnotationRecord & { readonly inReplyTo: string } =>
    record.subtype === "Text" &&
    record.inReplyTo !== undefined &&
    record.inReplyTo !== record.key &&
    record.replyType?.trim().toLowerCase() !== "group"
  const parentOf = (
    record: AnnotationRecord
  ): AnnotationRecord | undefined => (answers(record) ? byKey.get(record.inReplyTo) : undefined)
  // The first annotation of each thread, remembered along the way so that long chains of replies
  // to replies cost linear time.
  const roots = new Map<string, AnnotationRecord>()
  const rootOf = (record: AnnotationRecord): AnnotationRecord => {
    const path: Array<AnnotationRecord> = []
    const onPath = new Set<string>()
    let current = record
    let root: AnnotationRecord | undefined
    while (root === undefined) {
      const parent = roots.get(current.key) === undefined ? parentOf(current) : undefined
      if (parent === undefined) root = roots.get(current.key) ?? current
      else {
        if (onPath.has(current.key)) {
          return unreadable(`${format} replies form a cycle (annotation ${names.get(record.key)})`)
        }
        onPath.add(current.key)
        path.push(current)
        current = parent
      }
    }
    for (const member of path) roots.set(member.key, root)
    return root
  }

  interface Thread {
    readonly record: AnnotationRecord
    readonly replies: Array<PdfReply>
    readonly states: Array<{ readonly state: string; readonly model: "review" | "marked"; readonly date: string }>
  }
  const threads = new Map<string, Thread>()
  const order: Array<Thread> = []
  for (const record of records) {
    if (parentOf(record) !== undefined || threads.has(record.key)) continue
    // The review state of an annotation that is not in the file (or not kept) says nothing.
    if (answers(record) && record.state !== undefined) continue
    if (record.page === undefined) unreadable(`${format} annotation ${names.get(record.key)} has no page`)
    if (record.rect === undefined) unreadable(`${format} annotation ${names.get(record.key)} has no rectangle`)
    const thread: Thread = { record, replies: [], states: [] }
    if (record.state !== undefined) {
      const model = stateModelOf(record)
      if (model !== "other") thread.states.push({ state: record.state, model, date: "" })
    }
    threads.set(record.key, thread)
    order.push(thread)
  }
  for (const record of records) {
    if (parentOf(record) === undefined) continue
    const thread = threads.get(rootOf(record).key)
    if (thread === undefined) continue
    if (record.state !== undefined) {
      const model = stateModelOf(record)
      if (model !== "other") {
        thread.states.push({
          state: record.state,
          model,
          date: record.details.modified ?? record.details.created ?? ""
        })
      }
      continue
    }
    const reply: { -readonly [K in keyof PdfReply]: PdfReply[K] } = {
      name: names.get(record.key) ?? record.key,
      contents: record.details.contents ?? ""
    }
    if (record.details.author !== undefined) reply.author = record.details.author
    if (record.details.modified !== undefined) reply.modified = record.details.modified
    if (record.details.created !== undefined) reply.created = record.details.created
    thread.replies.push(reply)
  }

  return order.map(({ record, replies, states }) => {
    const latest = (model: "review" | "marked") =>
      states
        .map((entry, index) => ({ ...entry, index }))
        .filter((entry) => entry.model === model)
        .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.index - b.index))
        .at(-1)?.state
    const state = latest("review") ?? latest("marked")
    return {
      subtype: record.subtype,
      page: record.page ?? 0,
      name: names.get(record.key) ?? record.key,
      rect: record.rect ?? [0, 0, 0, 0],
      ...record.details,
      ...(state !== undefined ? { state } : {}),
      ...(replies.length > 0 ? { replies } : {})
    }
  })
}

/**
 * The records to write for annotations: each annotation, then its replies (Text annotations in
 * reply to it, on its page and rectangle), then its review state as Acrobat records one (a hidden
 * Text annotation in reply to it, named `<name>-state`). Keys are positions.
 */
export const flattenAnnotations = (
  annotations: ReadonlyArray<PdfAnnotation>
): Array<AnnotationRecord & { readonly name: string }> => {
  const used = new Set<string>()
  for (const annotation of annotations) {
    used.add(annotation.name)
    for (const reply of annotation.replies ?? []) used.add(reply.name)
  }
  const records: Array<AnnotationRecord & { readonly name: string }> = []
  const thread = { inReplyTo: undefined, replyType: undefined, state: undefined, stateModel: undefined }
  for (const annotation of annotations) {
    const { subtype, page, name, rect, state, replies, ...details } = annotation
    const parentKey = String(records.length)
    records.push({ ...thread, key: parentKey, subtype, name, page, rect, details })
    for (const reply of replies ?? []) {
      const replyDetails: MutableDetails = { contents: reply.contents, flags: REPLY_FLAGS, iconName: "Comment" }
      put(replyDetails, "author", reply.author)
      put(replyDetails, "modified", reply.modified)
      put(replyDetails, "created", reply.created)
      records.push({
        ...thread,
        key: String(records.length),
        subtype: "Text",
        name: reply.name,
        page,
        rect,
        details: replyDetails,
        inReplyTo: parentKey
      })
    }
    if (state !== undefined) {
      let stateName = `${name}-state`
      for (let n = 2; used.has(stateName); n++) stateName = `${name}-state-${n}`
      used.add(stateName)
      records.push({
        ...thread,
        key: String(records.length),
        subtype: "Text",
        name: stateName,
        page,
        rect,
        details: { flags: STATE_FLAGS, iconName: "Comment" },
        state,
        stateModel: isMarkedState(state) ? "Marked" : "Review",
        inReplyTo: parentKey
      })
    }
  }
  return records
}

/** Numbers as points, two by two; `what` (format and field) names them when their count is odd. */
export const coordinatePairs = (values: ReadonlyArray<number>, what: string): Array<PdfPoint> => {
  if (values.length % 2 !== 0) unreadable(`${what} has an odd number of coordinates`)
  const result: Array<PdfPoint> = []
  for (let i = 0; i < values.length; i += 2) result.push([values[i] ?? 0, values[i + 1] ?? 0])
  return result
}
