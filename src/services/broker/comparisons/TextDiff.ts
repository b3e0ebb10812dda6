/**
 * Word-level difference of two documents' text, from their text positions (the runs of
 * /pages/{n}/text/position). Pure: GET /difference feeds it both documents' pages.
 *
 * - Words are what whitespace separates, read in the runs' order; runs of one line that touch form
 *   one word ("ho" + "t" is "hot"). Line and page breaks count as spaces, and a word hyphenated at
 *   the end of a line is read whole ("reflow-" + "ed" is "reflowed"), so text that only reflowed
 *   shows no change. Words compare exactly: case and punctuation count ("fox," is not "fox;"), after
 *   Unicode compatibility folding (the ligature "ﬁ" is "fi") and without soft hyphens. A word
 *   hyphenated at a line end matches the same word with or without its hyphen on one line
 *   ("well-\nknown" is "well-known" and "wellknown").
 * - Changes: each run of deleted and inserted words is one change, and changes separated by at most
 *   {@link MERGE_GAP} unchanged words are one change, the unchanged words included in its text, as
 *   long as it stays on one page on each side (a single run of changed words may span pages) and
 *   changes words on both sides (insertions a word apart stay apart, as do deletions).
 *   `changeType` is MODIFIED when words were both deleted and inserted, DELETED when words were
 *   only removed, INSERTED when words were only added.
 * - `left` and `right` are the changed text of each side, from the first to the last changed word:
 *   its text, the page (0-based, as text positions number pages) where it starts and the union box
 *   of its words on that page (a change that runs onto the next page keeps the box of its first
 *   page; the fragments give every page). A side with nothing changed (the left of an INSERTED
 *   change, the right of a DELETED one) has empty text and a zero-width box where the text would
 *   be: after the word before it when the other side's changed text continues that word's line,
 *   else before the word after it.
 * - `fragments` list, in reading order, each group of deleted words then each group of inserted
 *   words, cut at line ends: text as printed on that line (a hyphenated word gives "reflow-" and
 *   "ed"), its page, and `endOfLine` when the line ends after it.
 *
 * Large documents: identical starts and ends are skipped, long stretches are cut at words that occur
 * once on each side (patience diff) and the pieces between are diffed with jsdiff (Myers), under an
 * edit budget when long, so time and memory stay near linear in the documents' length (400 pages,
 * 56,000 words: about 0.1 s identical, under a second for unrelated texts); a long stretch with no
 * common anchor that exceeds the budget is reported replaced whole.
 */
import { diffArrays } from "diff"
import { TextChange, TextFragment, TextSide } from "../../../schemas/broker/Comparisons.ts"
import { Rect, type TextPosition } from "../../../schemas/broker/Content.ts"

type ChangeType = TextChange["changeType"]
type FragmentType = TextFragment["type"]

/** Changes separated by at most this many unchanged words (on one page) are reported as one. */
const MERGE_GAP = 2

/** Stretches up to this many words (both sides) go to Myers' diff whole. */
const DIRECT_DIFF_WORDS = 2_000
/** The work (words × edit length) Myers may spend on a long stretch without anchors. */
const EDIT_BUDGET = 20_000_000

// ---- words ----------------------------------------------------------------------------------

/** Part of a word in one run: code points [start, end) of the run's text. */
interface Piece {
  readonly run: TextPosition
  readonly chars: ReadonlyArray<string>
  readonly start: number
  readonly end: number
  /** Line number, counted over the whole document. */
  readonly line: number
  /** The line ends after this piece. */
  endOfLine: boolean
}

interface Word {
  text: string
  /** The exact text (folded), interned. */
  key: number
  /** Without hyphens, interned: how a word hyphenated at a line end compares. */
  loose: number
  /** Joined from both sides of a hyphen at a line end. */
  joined: boolean
  readonly pieces: Array<Piece>
}

const HYPHENATED = /\p{L}[-\u00ad\u2010]$/u
const STARTS_WITH_LETTER = /^\p{L}/u
const SPACE = /\s/u

const center = (r: TextPosition) =>
  r.rotation === 90 || r.rotation === 270 ? r.position.x + r.position.w / 2 : r.position.y + r.position.h / 2
const thickness = (r: TextPosition) => (r.rotation === 90 || r.rotation === 270 ? r.position.w : r.position.h)
/** Whether the run's text goes towards smaller x (or y). */
const backwards = (r: TextPosition) =>
  r.rotation === 180 || r.rotation === 270 || (r.rotation === 0 && r.rightToLeftText)
const startOf = (r: TextPosition) => {
  const vertical = r.rotation === 90 || r.rotation === 270
  const [lo, size] = vertical ? [r.position.y, r.position.h] : [r.position.x, r.position.w]
  return backwards(r) ? -(lo + size) : lo
}
const endOf = (r: TextPosition) => {
  const vertical = r.rotation === 90 || r.rotation === 270
  const [lo, size] = vertical ? [r.position.y, r.position.h] : [r.position.x, r.position.w]
  return backwards(r) ? -lo : lo + size
}

/** How a run follows the one before it on its page. */
const relation = (previous: TextPosition | undefined, run: TextPosition): "line" | "space" | "glued" => {
  if (
    previous === undefined || previous.rotation !== run.rotation || previous.rightToLeftText !== run.rightToLeftText
  ) return "line"
  if (Math.abs(center(previous) - center(run)) >= Math.min(thickness(previous), thickness(run)) / 2) return "line"
  const gap = startOf(run) - endOf(previous)
  // Far back on the same baseline: another column or a repeated line, not the next word.
  if (gap < -run.fontSize) return "line"
  return gap < 0.15 * run.fontSize ? "glued" : "space"
}

class Interner {
  private readonly ids = new Map<string, number>()
  id(text: string) {
    let id = this.ids.get(text)
    if (id === undefined) {
      id = this.ids.size
      this.ids.set(text, id)
    }
    return id
  }
}

const fold = (text: string) => text.normalize("NFKC").replace(/\u00ad/g, "")
const unhyphenate = (text: string) => text.replace(/[-\u2010\u2011]/g, "")

/** The document's words in reading order. */
const wordsOf = (pages: ReadonlyArray<ReadonlyArray<TextPosition>>, interner: Interner): Array<Word> => {
  const words: Array<Word> = []
  let line = -1
  let current: Word | undefined
  const finish = () => {
    if (current !== undefined) words.push(current)
    current = undefined
  }
  const endLine = () => {
    finish()
    const last = words[words.length - 1]?.pieces.at(-1)
    if (last !== undefined && last.line === line) last.endOfLine = true
  }
  for (const page of pages) {
    let previous: TextPosition | undefined
    for (const run of page) {
      const how = relation(previous, run)
      previous = run
      if (how === "line") {
        endLine()
        line++
      } else if (how === "space") {
        finish()
      }
      const chars = Array.from(run.text)
      let i = 0
      while (i < chars.length) {
        if (SPACE.test(chars[i]!)) {
          finish()
          i++
          continue
        }
        let end = i
        while (end < chars.length && !SPACE.test(chars[end]!)) end++
        const piece: Piece = { run, chars, start: i, end, line, endOfLine: false }
        const text = chars.slice(i, end).join("")
        if (current === undefined) current = { text, key: 0, loose: 0, joined: false, pieces: [piece] }
        else {
          current.text += text
          current.pieces.push(piece)
        }
        i = end
      }
    }
    endLine()
  }
  finish()

  // Words hyphenated at a line end are read whole.
  const joined: Array<Word> = []
  for (let k = 0; k < words.length; k++) {
    const word = words[k]!
    const next = words[k + 1]
    if (
      next !== undefined && word.pieces.at(-1)!.endOfLine && HYPHENATED.test(word.text) &&
      STARTS_WITH_LETTER.test(next.text)
    ) {
      joined.push({
        text: word.text.slice(0, -1) + next.text,
        key: 0,
        loose: 0,
        joined: true,
        pieces: [...word.pieces, ...next.pieces]
      })
      k++
    } else {
      joined.push(word)
    }
  }
  for (const word of joined) {
    const folded = fold(word.text)
    word.key = interner.id(folded)
    word.loose = interner.id(unhyphenate(folded))
  }
  return joined
}

const same = (a: Word, b: Word) => a.key === b.key || ((a.joined || b.joined) && a.loose === b.loose)

// ---- diff -----------------------------------------------------------------------------------

/** Words [a0, a1) of the left replaced by words [b0, b1) of the right; either may be empty. */
interface Hunk {
  a0: number
  a1: number
  b0: number
  b1: number
}

/** The longest chain of pairs increasing in both coordinates (pairs come sorted by the first). */
const longestChain = (pairs: ReadonlyArray<readonly [number, number]>) => {
  const tails: Array<number> = []
  const back = new Int32Array(pairs.length)
  for (let k = 0; k < pairs.length; k++) {
    const j = pairs[k]![1]
    let lo = 0
    let hi = tails.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (pairs[tails[mid]!]![1] < j) lo = mid + 1
      else hi = mid
    }
    back[k] = lo > 0 ? tails[lo - 1]! : -1
    tails[lo] = k
  }
  const chain: Array<readonly [number, number]> = []
  for (let k = tails.length > 0 ? tails[tails.length - 1]! : -1; k >= 0; k = back[k]!) chain.push(pairs[k]!)
  return chain.reverse()
}

const diffWords = (a: ReadonlyArray<Word>, b: ReadonlyArray<Word>): Array<Hunk> => {
  const hunks: Array<Hunk> = []
  const emit = (a0: number, a1: number, b0: number, b1: number) => {
    if (a0 === a1 && b0 === b1) return
    const last = hunks[hunks.length - 1]
    if (last !== undefined && last.a1 === a0 && last.b1 === b0) {
      last.a1 = a1
      last.b1 = b1
    } else {
      hunks.push({ a0, a1, b0, b1 })
    }
  }

  const myers = (a0: number, a1: number, b0: number, b1: number, maxEditLength: number) => {
    const changes = diffArrays(a.slice(a0, a1), b.slice(b0, b1), { comparator: same, maxEditLength })
    if (changes === undefined) return false
    let i = a0
    let j = b0
    for (const change of changes) {
      if (change.removed) {
        emit(i, i + change.count, j, j)
        i += change.count
      } else if (change.added) {
        emit(i, i, j, j + change.count)
        j += change.count
      } else {
        i += change.count
        j += change.count
      }
    }
    return true
  }

  /** Pairs of words that occur once in each range and are the same, in a chain increasing on both sides. */
  const anchors = (a0: number, a1: number, b0: number, b1: number) => {
    const once = (words: ReadonlyArray<Word>, from: number, to: number) => {
      const at = new Map<number, number>()
      for (let k = from; k < to; k++) {
        const loose = words[k]!.loose
        at.set(loose, at.has(loose) ? -1 : k)
      }
      return at
    }
    const inA = once(a, a0, a1)
    const inB = once(b, b0, b1)
    const pairs: Array<readonly [number, number]> = []
    for (let i = a0; i < a1; i++) {
      const loose = a[i]!.loose
      if (inA.get(loose) !== i) continue
      const j = inB.get(loose)
      if (j !== undefined && j >= 0 && same(a[i]!, b[j]!)) pairs.push([i, j])
    }
    return longestChain(pairs)
  }

  // An explicit stack rather than recursion: hundreds of pages cut into many stretches.
  const stack: Array<Hunk> = [{ a0: 0, a1: a.length, b0: 0, b1: b.length }]
  while (stack.length > 0) {
    let { a0, a1, b0, b1 } = stack.pop()!
    while (a0 < a1 && b0 < b1 && same(a[a0]!, b[b0]!)) {
      a0++
      b0++
    }
    while (a0 < a1 && b0 < b1 && same(a[a1 - 1]!, b[b1 - 1]!)) {
      a1--
      b1--
    }
    const size = a1 - a0 + b1 - b0
    if (a0 === a1 || b0 === b1) {
      emit(a0, a1, b0, b1)
      continue
    }
    if (size <= DIRECT_DIFF_WORDS) {
      myers(a0, a1, b0, b1, size)
      continue
    }
    const chain = anchors(a0, a1, b0, b1)
    if (chain.length === 0) {
      if (!myers(a0, a1, b0, b1, Math.max(100, Math.floor(EDIT_BUDGET / size)))) emit(a0, a1, b0, b1)
      continue
    }
    // Pushed last to first, so stretches come off the stack (and hunks out) in reading order.
    const stretches: Array<Hunk> = []
    let i = a0
    let j = b0
    for (const [ai, bj] of chain) {
      stretches.push({ a0: i, a1: ai, b0: j, b1: bj })
      i = ai + 1
      j = bj + 1
    }
    stretches.push({ a0: i, a1, b0: j, b1 })
    for (let k = stretches.length - 1; k >= 0; k--) stack.push(stretches[k]!)
  }
  return hunks
}

// ---- changes --------------------------------------------------------------------------------

const round2 = (n: number) => Math.round(n * 100) / 100

const pageOf = (piece: Piece) => piece.run.pageNumber

/** The box of a piece, cut from its run's box by the character widths. */
const pieceBox = (piece: Piece): { x: number; y: number; w: number; h: number } => {
  const { run } = piece
  const p = run.position
  const widths = run.individualWidths
  if (widths.length !== piece.chars.length || ![0, 90, 180, 270].includes(run.rotation)) {
    return { x: p.x, y: p.y, w: p.w, h: p.h }
  }
  let before = 0
  for (let k = 0; k < piece.start; k++) before += widths[k]!
  let length = 0
  for (let k = piece.start; k < piece.end; k++) length += widths[k]!
  const vertical = run.rotation === 90 || run.rotation === 270
  const size = vertical ? p.h : p.w
  const offset = backwards(run) ? size - before - length : before
  return vertical ? { x: p.x, y: p.y + offset, w: p.w, h: length } : { x: p.x + offset, y: p.y, w: length, h: p.h }
}

const toRect = (box: { x: number; y: number; w: number; h: number }) =>
  new Rect({ x: round2(box.x), y: round2(box.y), w: round2(box.w), h: round2(box.h) })

const pieceText = (piece: Piece) => piece.chars.slice(piece.start, piece.end).join("")

/** Words [from, to] (inclusive) of one side: their text, first page and box on that page. */
const side = (words: ReadonlyArray<Word>, from: number, to: number) => {
  const page = pageOf(words[from]!.pieces[0]!)
  let x0 = Infinity
  let y0 = Infinity
  let x1 = -Infinity
  let y1 = -Infinity
  const texts: Array<string> = []
  for (let k = from; k <= to; k++) {
    const word = words[k]!
    texts.push(word.text)
    for (const piece of word.pieces) {
      if (pageOf(piece) !== page) continue
      const box = pieceBox(piece)
      x0 = Math.min(x0, box.x)
      y0 = Math.min(y0, box.y)
      x1 = Math.max(x1, box.x + box.w)
      y1 = Math.max(y1, box.y + box.h)
    }
  }
  return new TextSide({
    text: texts.join(" "),
    pageNumber: page,
    position: toRect({ x: x0, y: y0, w: x1 - x0, h: y1 - y0 })
  })
}

/**
 * An empty side: a zero-width box where words would go before `index`, after the word before it
 * when the other side's text continues a line (or nothing follows), else before the word after it.
 */
const caret = (words: ReadonlyArray<Word>, index: number, afterPrevious: boolean) => {
  const before = words[index - 1]?.pieces.at(-1)
  const after = words[index]?.pieces[0]
  const useBefore = before !== undefined && (after === undefined || afterPrevious)
  const piece = useBefore ? before : after
  if (piece === undefined) {
    return new TextSide({ text: "", pageNumber: 0, position: new Rect({ x: 0, y: 0, w: 0, h: 0 }) })
  }
  const box = pieceBox(piece)
  // The edge where the text would continue: the end of the word before, or the start of the one after.
  const atEnd = useBefore !== backwards(piece.run)
  const vertical = piece.run.rotation === 90 || piece.run.rotation === 270
  const point = vertical
    ? { x: box.x, y: atEnd ? box.y + box.h : box.y, w: box.w, h: 0 }
    : { x: atEnd ? box.x + box.w : box.x, y: box.y, w: 0, h: box.h }
  return new TextSide({ text: "", pageNumber: pageOf(piece), position: toRect(point) })
}

/** Words [from, to) as fragments of `type`, cut where lines end. */
const fragments = (
  words: ReadonlyArray<Word>,
  from: number,
  to: number,
  type: FragmentType,
  out: Array<TextFragment>
) => {
  let text = ""
  let last: Piece | undefined
  const flush = () => {
    if (last !== undefined) {
      out.push(new TextFragment({ text, type, pageNumber: pageOf(last), endOfLine: last.endOfLine }))
    }
  }
  for (let k = from; k < to; k++) {
    words[k]!.pieces.forEach((piece, n) => {
      if (last !== undefined && last.line === piece.line) {
        text += (n === 0 ? " " : "") + pieceText(piece)
      } else {
        flush()
        text = pieceText(piece)
      }
      last = piece
    })
  }
  flush()
}

/** The page of word `index`, clamped to the side; -1 for a side without words. */
const pageAt = (words: ReadonlyArray<Word>, index: number) => {
  const word = words[Math.min(Math.max(index, 0), words.length - 1)]
  return word === undefined ? -1 : pageOf(word.pieces[0]!)
}

/** Whether words [from, to] (clamped to the side) all lie on `page`. */
const allOn = (words: ReadonlyArray<Word>, from: number, to: number, page: number) => {
  for (let k = Math.max(0, from); k <= Math.min(words.length - 1, to); k++) {
    for (const piece of words[k]!.pieces) if (pageOf(piece) !== page) return false
  }
  return true
}

/** Whether the text around word `index` continues a line: the words before and at it share one. */
const continuesLine = (words: ReadonlyArray<Word>, index: number) => {
  const before = words[index - 1]?.pieces.at(-1)
  const at = words[index]?.pieces[0]
  return before !== undefined && at !== undefined && before.line === at.line
}

/**
 * The word-level difference of two documents, from the text positions of each page of each
 * (as /pages/{n}/text/position gives them), page by page. See the module's comment for what
 * counts as a change and how changes are reported.
 */
export const diffText = (
  left: ReadonlyArray<ReadonlyArray<TextPosition>>,
  right: ReadonlyArray<ReadonlyArray<TextPosition>>
): ReadonlyArray<TextChange> => {
  const interner = new Interner()
  const a = wordsOf(left, interner)
  const b = wordsOf(right, interner)
  const hunks = diffWords(a, b)

  // Hunks close together make one change, as long as it stays on one page on each side and changes
  // words on both sides: two insertions (or two deletions) a word apart stay two changes, else the
  // unchanged word between them would read as inserted on one side only.
  const groups: Array<{ readonly hunks: Array<Hunk>; readonly pageA: number; readonly pageB: number }> = []
  const deletes = (h: Hunk) => h.a1 > h.a0
  const inserts = (h: Hunk) => h.b1 > h.b0
  for (const hunk of hunks) {
    const group = groups[groups.length - 1]
    const previous = group?.hunks[group.hunks.length - 1]
    if (
      group !== undefined && previous !== undefined &&
      hunk.a0 - previous.a1 <= MERGE_GAP &&
      (deletes(hunk) || group.hunks.some(deletes)) && (inserts(hunk) || group.hunks.some(inserts)) &&
      allOn(a, previous.a0, hunk.a0, group.pageA) && allOn(b, previous.b0, hunk.b0, group.pageB)
    ) {
      group.hunks.push(hunk)
    } else {
      groups.push({ hunks: [hunk], pageA: pageAt(a, hunk.a0), pageB: pageAt(b, hunk.b0) })
    }
  }

  return groups.map(({ hunks: group }) => {
    const deleting = group.filter(deletes)
    const inserting = group.filter(inserts)
    const changeType: ChangeType = deleting.length > 0 && inserting.length > 0
      ? "MODIFIED"
      : deleting.length > 0
      ? "DELETED"
      : "INSERTED"
    const out: Array<TextFragment> = []
    for (const hunk of group) {
      fragments(a, hunk.a0, hunk.a1, "DELETED", out)
      fragments(b, hunk.b0, hunk.b1, "INSERTED", out)
    }
    return new TextChange({
      changeType,
      left: deleting.length > 0
        ? side(a, deleting[0]!.a0, deleting[deleting.length - 1]!.a1 - 1)
        : caret(a, group[0]!.a0, continuesLine(b, group[0]!.b0)),
      right: inserting.length > 0
        ? side(b, inserting[0]!.b0, inserting[inserting.length - 1]!.b1 - 1)
        : caret(b, group[0]!.b0, continuesLine(a, group[0]!.a0)),
      fragments: out
    })
  })
}
