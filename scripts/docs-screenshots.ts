/**
 * The screenshots of docs/viewer.md ("The browser viewer"), made by a script rather than by hand:
 * `npm run docs:screenshots` writes them into docs/images/.
 *
 * A broker and a viewer (its only rendition target that broker) run in this process, each on an
 * ephemeral loopback port with the embedded database in a fresh temporary DATA_DIR (the test
 * layers of src/layers/Test.ts), the bundle built first (scripts/build-web.mjs). Corpus files
 * (test/corpus/MANIFEST.tsv says where each comes from) are uploaded through the viewer's
 * uploadServlet and opened at `{viewer}/?uuid=…` in headless Chromium (test/support/browser.ts),
 * 1280×800 at device scale 1 unless a shot says otherwise. Each shot waits for what it shows to be
 * painted (the element's `pagerendered` events, tiles loaded, images decoded, requests settled),
 * never for a fixed time alone; the PNGs are reduced to a palette by sharp to stay small.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Context, Effect, Layer, Logger, LogLevel } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import sharp from "sharp"
import { brokerTestLayer, BrokerUrl, viewerTestLayer, ViewerUrl } from "../src/layers/Test.ts"
import { CORPUS } from "../test/support/backends.ts"
import { browser } from "../test/support/browser.ts"
import type { ViewerEvent } from "../test/web/viewer-tab.ts"
import { buildWeb } from "./build-web.mjs"

const IMAGES = new URL("../docs/images/", import.meta.url).pathname

/**
 * Runs in the tab before its scripts: the element's events, recorded from the first one, as
 * test/web/viewer-tab.ts does (only its types are imported: at run time it needs vitest).
 */
const recordEvents = () => {
  window.__viewerEvents = []
  for (const name of ["documentloaded", "pagechange", "pagerendered", "searchresults", "error", "documentcreated"]) {
    document.addEventListener(name, (event) => {
      window.__viewerEvents.push({ name, detail: (event as CustomEvent).detail, at: performance.now() })
    }, true)
  }
}

/** A corpus file (or bytes, named) uploaded through the viewer's uploadServlet; answers its ID. */
const upload = async (viewer: string, file: string, bytes?: Uint8Array) => {
  const form = new FormData()
  form.append(
    "file",
    new Blob([(bytes ?? readFileSync(join(CORPUS, file))) as Uint8Array<ArrayBuffer>]),
    file.split("/").pop()!
  )
  const reply = await fetch(`${viewer}/viewergwt/uploadServlet`, { method: "POST", body: form })
  const text = await reply.text()
  if (reply.status !== 200) throw new Error(`upload of ${file} failed with ${reply.status}: ${text}`)
  return text
}

/** The first event `name` recorded at or after index `since` whose detail passes `test` (source of a function body). */
const eventCame = (tab: Page, name: string, test = "true", since = 0) =>
  tab.waitForFunction(
    ([eventName, testSource, from]) => {
      const passes = new Function("detail", `return (${testSource})`) as (detail: unknown) => boolean
      return window.__viewerEvents.slice(from).find((event) => event.name === eventName && passes(event.detail)) ??
        false
    },
    [name, test, since] as const,
    { timeout: 120_000 }
  ).then((handle) => handle.jsonValue() as Promise<ViewerEvent>)

const eventCount = (tab: Page) => tab.evaluate(() => window.__viewerEvents.length)

/**
 * No request in flight for `quietMs`: thumbnails, tiles and sharper images come from fetches the
 * element starts on its own, after the events a shot waits for.
 */
const settled = (tab: Page, quietMs = 400) =>
  new Promise<void>((resolve) => {
    let inFlight = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const arm = () => {
      clearTimeout(timer)
      if (inFlight === 0) {
        timer = setTimeout(() => {
          tab.off("request", started).off("requestfinished", ended).off("requestfailed", ended)
          resolve()
        }, quietMs)
      }
    }
    const started = () => {
      inFlight++
      arm()
    }
    const ended = () => {
      inFlight = Math.max(0, inFlight - 1)
      arm()
    }
    tab.on("request", started).on("requestfinished", ended).on("requestfailed", ended)
    arm()
  })

/**
 * Every image in the element's shadow roots (pages, tiles, thumbnails) decoded, no page still
 * loading, and at least `least` images matching `selector` (within the image's own shadow root).
 */
const imagesPainted = (tab: Page, selector = "img", least = 1) =>
  tab.waitForFunction(
    ([wanted, minimum]) => {
      // No named function in here: tsx would wrap it in a helper the page does not have.
      const images: Array<HTMLImageElement> = []
      let loading = 0
      const roots: Array<ShadowRoot | Document> = [document]
      for (let root = roots.pop(); root !== undefined; root = roots.pop()) {
        images.push(...root.querySelectorAll<HTMLImageElement>("img"))
        loading += root.querySelectorAll(".page-loading").length
        for (const element of root.querySelectorAll("*")) if (element.shadowRoot) roots.push(element.shadowRoot)
      }
      return loading === 0 && images.every((image) => image.complete && image.naturalWidth > 0) &&
        images.filter((image) => image.matches(wanted)).length >= minimum
    },
    [selector, least] as const,
    { timeout: 120_000 }
  )

/** Painted, then nothing more on its way, then painted again (what arrived meanwhile decoded too). */
const quiet = async (tab: Page, selector?: string, least?: number) => {
  await imagesPainted(tab, selector, least)
  await settled(tab)
  await imagesPainted(tab, selector, least)
}

interface Shot {
  readonly file: string
  /** A corpus file, or bytes made from one (uploaded under `name`). */
  readonly document: string
  /** The shot changes its document (annotations, marks): it gets an upload of its own. */
  readonly ownCopy?: boolean
  readonly query?: string
  readonly width?: number
  readonly height?: number
  /** What the reader does once page 1 is painted, and the wait until it shows; `other` is the second document's ID. */
  readonly act: (tab: Page, other: string | undefined) => Promise<void>
  /** A second document the shot needs (a revision to compare with), uploaded as `name`. */
  readonly other?: { readonly name: string; readonly bytes: () => Uint8Array }
}

/** Chapter I of War and Peace (corpus), and a revision of it: a word replaced, one deleted, one inserted. */
const chapterOne = () => {
  const text = readFileSync(join(CORPUS, "office/book-war-and-peace-1225p.txt"), "utf8")
  return text.slice(0, text.indexOf("CHAPTER II"))
}
const revisedChapterOne = () =>
  new TextEncoder().encode(
    chapterOne().replace("so Genoa and Lucca", "so Venice and Lucca").replace("what a virulent attack", "what a attack")
      .replace("know that profound thinker", "know that truly profound thinker")
  )

/** The find bar opened and `text` found, then Enter pressed until the current hit is on page `onPage`. */
const find = async (tab: Page, text: string, onPage = 1) => {
  await tab.keyboard.press("Control+f")
  const input = tab.locator("docstack-find-bar input[type=search]")
  await input.pressSequentially(text)
  await input.press("Enter")
  await eventCame(tab, "searchresults", "detail.done && detail.total > 0")
  const current = tab.locator(`docstack-viewer .page[data-page-number="${onPage}"] .hit.current`)
  for (let presses = 0; await current.count() === 0; presses++) {
    if (presses === 50) throw new Error(`no hit of "${text}" on page ${onPage}`)
    await input.press("Enter")
    // Two frames: the viewer has scrolled and drawn the new current hit.
    await tab.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
  }
  await quiet(tab)
}

/** Drags the mouse across the text layer span holding `text`, as a reader selects it. */
const selectSpan = async (tab: Page, text: string) => {
  const box = (await tab.locator("docstack-viewer .text-layer span", { hasText: text }).first().boundingBox())!
  await tab.mouse.move(box.x + 1, box.y + box.height / 2)
  await tab.mouse.down()
  await tab.mouse.move(box.x + box.width - 1, box.y + box.height / 2, { steps: 8 })
  await tab.mouse.up()
}

/** Every annotation change saved, as the annotation bar says. */
const annotationsSaved = (tab: Page) =>
  tab.locator("docstack-annotation-bar .status", { hasText: "All changes saved" }).waitFor({ timeout: 60_000 })

/** The redaction tools out, `text` found on every page and every hit marked; answers the panel. */
const markForRedaction = async (tab: Page, text: string) => {
  await tab.locator("[data-action=redact]").click()
  const panel = tab.locator("docstack-redaction")
  await panel.locator("input[type=search]").fill(text)
  await panel.locator("button[type=submit]").click()
  // Every page searched before the hits are marked.
  await panel.locator(".status", { hasText: /^\d+ found$/ }).waitFor()
  await panel.locator("[data-action=mark-hits]").click()
  await annotationsSaved(tab)
  return panel
}

/** A drag with the mouse from one point of page 1 to another, in fractions of the page's size. */
const dragOnPage = async (tab: Page, from: [number, number], to: [number, number]) => {
  const page = (await tab.locator("docstack-viewer .page[data-page-number='1'] .page-inner").boundingBox())!
  await tab.mouse.move(page.x + page.width * from[0], page.y + page.height * from[1])
  await tab.mouse.down()
  await tab.mouse.move(page.x + page.width * to[0], page.y + page.height * to[1], { steps: 8 })
  await tab.mouse.up()
}

/** A decoded tile under the middle of the view: the tiles of where it was scrolled to came. */
const tileAtCentre = (tab: Page) =>
  tab.waitForFunction(
    () => {
      const root = document.querySelector("docstack-viewer")!.shadowRoot!
      const view = root.querySelector(".viewport")!.getBoundingClientRect()
      const [x, y] = [view.left + view.width / 2, view.top + view.height / 2]
      return [...root.querySelectorAll<HTMLImageElement>("img.tile")].some((tile) => {
        const box = tile.getBoundingClientRect()
        return tile.complete && tile.naturalWidth > 0 && x >= box.left && x <= box.right && y >= box.top &&
          y <= box.bottom
      })
    },
    undefined,
    { timeout: 120_000 }
  )

const SHOTS: ReadonlyArray<Shot> = [
  {
    file: "viewer-thumbnails.png",
    document: "pdf/tracemonkey.pdf",
    act: async (tab) => {
      await tab.locator("[data-action=sidebar]").click()
      await quiet(tab, "span.box > img", 3)
    }
  },
  // Page 2 has more hits in view than page 1's title.
  { file: "viewer-find.png", document: "pdf/tracemonkey.pdf", act: (tab) => find(tab, "trace", 2) },
  {
    file: "viewer-bookmarks.png",
    document: "pdf/freeculture.pdf",
    act: async (tab) => {
      await tab.locator("[data-action=sidebar]").click()
      await tab.getByRole("tab", { name: "Bookmarks" }).click()
      // A chapter under a part of the book: nesting in the tree, and a jump to page 35.
      const entry = tab.locator("docstack-bookmarks [role=treeitem]", { hasText: "Chapter 1: Creators" })
      await entry.waitFor()
      const since = await eventCount(tab)
      await entry.click()
      const change = await eventCame(tab, "pagechange", "true", since)
      await eventCame(tab, "pagerendered", `detail.pageNumber === ${Number(change.detail.pageNumber)}`, since)
      await quiet(tab)
    }
  },
  {
    file: "viewer-parts.png",
    document: "office/email-with-image.eml",
    act: async (tab) => {
      // The email opens first; its attached picture is opened from the tree.
      const since = await eventCount(tab)
      await tab.locator("docstack-parts [role=treeitem]", { hasText: "unstructured_logo" }).click()
      await eventCame(tab, "documentloaded", "detail.title.startsWith('unstructured_logo')", since)
      await eventCame(tab, "pagerendered", "detail.pageNumber === 1", since)
      await quiet(tab)
    }
  },
  {
    file: "viewer-zoom.png",
    document: "pdf/tracemonkey.pdf",
    query: "&zoom=400",
    act: async (tab) => {
      // The abstract rather than the page's blank top-left corner, scrolled by hand: scrollIntoView
      // would also scroll the page's own box (overflow: hidden) under the view.
      await tab.locator("docstack-viewer .text-layer span", { hasText: "Abstract" }).first().evaluate((span) => {
        const view = (span.getRootNode() as ShadowRoot).querySelector(".viewport")!
        const [word, box] = [span.getBoundingClientRect(), view.getBoundingClientRect()]
        view.scrollBy(word.left - box.left - 60, word.top - box.top - 40)
      })
      await tileAtCentre(tab)
      await quiet(tab, "img.tile", 1)
    }
  },
  {
    file: "viewer-dark.png",
    document: "pdf/tracemonkey.pdf",
    act: async (tab) => {
      await tab.locator("[data-action=dark]").click()
      await tab.locator("docstack-viewer[theme=dark]").waitFor()
      await quiet(tab)
    }
  },
  {
    file: "viewer-narrow.png",
    document: "pdf/tracemonkey.pdf",
    width: 360,
    height: 740,
    act: async (tab) => {
      await tab.locator("[data-action=more]").click()
      await tab.getByRole("menu").waitFor()
      await quiet(tab)
    }
  },
  {
    file: "viewer-annotate.png",
    document: "pdf/tracemonkey.pdf",
    ownCopy: true,
    query: "&user=Alice",
    act: async (tab) => {
      await tab.locator("[data-action=annotate]").click()
      await annotationsSaved(tab)
      await selectSpan(tab, "Trace-based")
      await tab.locator("docstack-viewer .selection-menu [data-mark=Highlight]").click()
      await selectSpan(tab, "Mozilla Corporation")
      await tab.locator("docstack-viewer .selection-menu [data-mark=Underline]").click()
      const bar = tab.locator("docstack-annotation-bar")
      await bar.locator("[data-tool=Square]").click()
      // The affiliations boxed, an arrow pointing at them.
      await dragOnPage(tab, [0.3, 0.262], [0.7, 0.36])
      await bar.locator("[data-tool=Arrow]").click()
      await dragOnPage(tab, [0.88, 0.26], [0.73, 0.3])
      await bar.locator("[data-tool=Text]").click()
      await dragOnPage(tab, [0.9, 0.08], [0.9, 0.08])
      const comment = tab.locator("docstack-annotations textarea.contents")
      await comment.fill("Is this the final title?")
      await comment.press("Tab")
      await tab.locator("docstack-annotations textarea.new-reply").fill("Yes, as submitted to PLDI.")
      await tab.locator("docstack-annotations [data-action=reply]").click()
      await annotationsSaved(tab)
      await quiet(tab)
    }
  },
  {
    file: "viewer-redact.png",
    document: "pdf/tracemonkey.pdf",
    ownCopy: true,
    act: async (tab) => {
      await markForRedaction(tab, "Mozilla")
      await quiet(tab)
    }
  },
  {
    file: "viewer-redacted.png",
    document: "pdf/tracemonkey.pdf",
    ownCopy: true,
    act: async (tab) => {
      const panel = await markForRedaction(tab, "Mozilla")
      const since = await eventCount(tab)
      await panel.locator("[data-action=apply]").click()
      await panel.locator("[data-action=confirm-apply]").click()
      const made = await eventCame(tab, "documentcreated", "true", since)
      // Any page painted since the marks were applied is the copy's.
      await eventCame(tab, "pagerendered", "detail.pageNumber === 1", since)
      await tab.locator("docstack-viewer .toolbar .title", { hasText: "(redacted)" }).waitFor()
      if (!made.detail.uuid) throw new Error("no redacted copy")
      await quiet(tab)
    }
  },
  {
    file: "viewer-compare.png",
    document: "office/book-war-and-peace-1225p.txt",
    ownCopy: true,
    other: { name: "chapter-one-revised.txt", bytes: revisedChapterOne },
    act: async (tab, other) => {
      await tab.locator("[data-action=compare]").click()
      const field = tab.getByRole("textbox", { name: "Document ID or viewer link" })
      await field.fill(other!)
      await field.press("Enter")
      await tab.locator("docstack-compare", { hasText: "changes" }).first().waitFor()
      await tab.locator("docstack-compare [data-action=next-change]").click()
      await quiet(tab)
    }
  },
  {
    file: "viewer-organize.png",
    document: "pdf/tracemonkey.pdf",
    act: async (tab) => {
      await tab.locator("[data-action=organize]").click()
      const grid = tab.locator("docstack-page-organizer")
      await grid.locator("[role=option]").nth(3).waitFor()
      // Pages 3 and 4 chosen, as a reader does before extracting or moving them.
      await grid.locator("[role=option]").nth(2).click()
      await grid.locator("[role=option]").nth(3).click({ modifiers: ["Shift"] })
      // Every one of the 14 thumbnails drawn.
      await quiet(tab, "img", 14)
    }
  },
  {
    file: "viewer-fr.png",
    document: "pdf/tracemonkey.pdf",
    query: "&lang=fr",
    act: async (tab) => {
      await tab.locator("[data-action=sidebar]").click()
      await find(tab, "trace")
    }
  }
]

/** One shot in a fresh browser context: opened, page 1 painted, acted, captured, reduced to a palette. */
const take = async (
  chrome: Browser,
  viewer: string,
  ids: ReadonlyMap<string, string>,
  others: ReadonlyMap<string, string>,
  shot: Shot
) => {
  const started = performance.now()
  const context = await chrome.newContext({
    viewport: { width: shot.width ?? 1280, height: shot.height ?? 800 },
    deviceScaleFactor: 1
  })
  try {
    const tab = await context.newPage()
    await tab.addInitScript(recordEvents)
    const id = ids.get(shot.ownCopy ? shot.file : shot.document)!
    await tab.goto(`${viewer}/?uuid=${encodeURIComponent(id)}${shot.query ?? ""}`)
    await eventCame(tab, "pagerendered", "detail.pageNumber === 1")
    await shot.act(tab, others.get(shot.file))
    const failures = await tab.evaluate(() => window.__viewerEvents.filter((event) => event.name === "error"))
    if (failures.length > 0) throw new Error(`${shot.file}: the viewer said ${JSON.stringify(failures)}`)
    const png = await sharp(await tab.screenshot())
      .png({ palette: true, quality: 80, effort: 10, compressionLevel: 9 })
      .toBuffer()
    writeFileSync(join(IMAGES, shot.file), png)
    console.log(`${shot.file}: ${Math.round(png.length / 1024)} kB in ${Math.round(performance.now() - started)} ms`)
  } catch (error) {
    // The tab as it was when the wait gave up, to see why.
    const failed = join(tmpdir(), `failed-${shot.file}`)
    await context.pages()[0]?.screenshot({ path: failed }).catch(() => undefined)
    throw new Error(`${shot.file} failed (the tab then: ${failed})`, { cause: error })
  } finally {
    await context.close()
  }
}

/** A temporary DATA_DIR for the broker and one for the viewer, removed at the end. */
const dataDirs = Effect.acquireRelease(
  Effect.sync(() => {
    const root = mkdtempSync(join(tmpdir(), "docstack-screenshots-"))
    for (const name of ["broker", "viewer"]) mkdirSync(join(root, name))
    return root
  }),
  (root) => Effect.sync(() => rmSync(root, { recursive: true, force: true }))
)

const main = Effect.gen(function*() {
  const started = performance.now()
  // `npm run docs:screenshots -- viewer-zoom.png …` makes only those.
  const wanted = process.argv.slice(2)
  const unknown = wanted.filter((file) => !SHOTS.some((shot) => shot.file === file))
  if (unknown.length > 0) throw new Error(`no such screenshot: ${unknown.join(", ")}`)
  const shots = SHOTS.filter((shot) => wanted.length === 0 || wanted.includes(shot.file))
  const built = yield* Effect.promise(() => buildWeb())
  if (built.length > 0) console.log(`built ${built.join(", ")}`)
  const root = yield* dataDirs
  // Built apart: two HTTP applications in one context would share one router.
  const broker = Context.get(yield* Layer.build(brokerTestLayer({ DATA_DIR: join(root, "broker") })), BrokerUrl)
  const viewer = Context.get(
    yield* Layer.build(viewerTestLayer({ DATA_DIR: join(root, "viewer"), RENDITION_TARGETS: broker })),
    ViewerUrl
  )
  // Shared uploads by file, and one of its own for each shot that changes its document.
  const documents = [...new Set(shots.map((shot) => (shot.ownCopy ? shot.file : shot.document)))]
  const fileOf = (key: string) => shots.find((shot) => shot.file === key && shot.ownCopy)?.document ?? key
  // A comparison's original is the first chapter alone, as its revision is.
  const bytesOf = (key: string) =>
    fileOf(key) === "office/book-war-and-peace-1225p.txt" ? new TextEncoder().encode(chapterOne()) : undefined
  const ids = new Map(
    yield* Effect.promise(() =>
      Promise.all(documents.map(async (key) => [key, await upload(viewer, fileOf(key), bytesOf(key))] as const))
    )
  )
  // The second documents some shots compare with.
  const others = new Map(
    yield* Effect.promise(() =>
      Promise.all(
        shots.flatMap((shot) =>
          shot.other ? [upload(viewer, shot.other.name, shot.other.bytes()).then((id) => [shot.file, id] as const)] : []
        )
      )
    )
  )
  const chrome = yield* browser
  mkdirSync(IMAGES, { recursive: true })
  for (const shot of shots) yield* Effect.promise(() => take(chrome, viewer, ids, others, shot))
  console.log(`${shots.length} screenshots in ${Math.round((performance.now() - started) / 1000)} s`)
})

NodeRuntime.runMain(main.pipe(Effect.scoped, Logger.withMinimumLogLevel(LogLevel.Warning)))
