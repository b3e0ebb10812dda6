/**
 * `<docstack-chat>`: a conversation with the gateway's model. Questions with text and images go out
 * as one streamed request; the answer appears as it is generated, its markdown rendered and
 * sanitized; Stop ends it (the partial answer stays); finished answers take feedback. `ask()` lets
 * a page (or `<docstack-quick-prompt>`) send content items, a stored prompt among them.
 */
import { css, html, nothing, type PropertyValues, svg } from "lit"
import { unsafeHTML } from "lit/directives/unsafe-html.js"
import type { ContentItem, StoredRequest, StreamEvent } from "../client/GatewayClient.ts"
import { GatewayElement } from "../client/GatewayElement.ts"
import { renderMarkdown } from "../client/Markdown.ts"

/** The image types the gateway accepts. */
const IMAGE_TYPES = "image/png,image/jpeg,image/gif,image/webp"

/** Icons drawn here rather than emoji, which not every system has a font for (Material Icons' paths, Apache 2.0). */
const icon = (path: string) =>
  html`<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" fill="currentColor">${svg`<path d=${path} />`}</svg>`
const THUMB_UP =
  "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z"
const THUMB_DOWN =
  "M15 3H6c-.83 0-1.54.5-1.84 1.22l-3.02 7.05c-.09.23-.14.47-.14.73v2c0 1.1.9 2 2 2h6.31l-.95 4.57-.03.32c0 .41.17.79.44 1.06L9.83 23l6.59-6.59c.36-.36.58-.86.58-1.41V5c0-1.1-.9-2-2-2zm4 0v12h4V3h-4z"
const IMAGE =
  "M21 19V5c0-1.1-.9-2-2-2H5c-1.1 0-2 .9-2 2v14c0 1.1.9 2 2 2h14c1.1 0 2-.9 2-2zM8.5 13.5l2.5 3.01L14.5 12l4.5 6H5l3.5-4.5z"

interface Attached {
  readonly name: string
  readonly dataUrl: string
}

interface Turn {
  readonly question: { readonly text: string; readonly images: ReadonlyArray<Attached> }
  requestId?: string
  answer: string
  status: "RUNNING" | "COMPLETED" | "STOPPED" | "FAILED"
  error?: string
  feedback?: "GOOD" | "BAD"
  /** Feedback given here and now (not read with an earlier turn): thanked for. */
  thanked?: boolean
}

/** A turn the gateway kept, as the chat shows it: the question's text and images, the answer and its state. */
const turnOf = (request: StoredRequest): Turn => {
  const items = request.inputs.flatMap((input) => input.content)
  return {
    question: {
      text: items.flatMap((item) => (item.type === "text" ? [item.text] : [])).join("\n"),
      images: items.flatMap((item) =>
        item.type === "image" ? [{ name: "", dataUrl: `data:${item.mediaType};base64,${item.data}` }] : []
      )
    },
    requestId: request.id,
    answer: request.response,
    status: request.status,
    ...(request.errorMessage === null ? {} : { error: request.errorMessage }),
    ...(request.feedback === null ? {} : { feedback: request.feedback })
  }
}

const readAsDataUrl = (file: File) =>
  new Promise<Attached>((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve({ name: file.name, dataUrl: String(reader.result) })
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })

export class ChatElement extends GatewayElement {
  static override properties = {
    conversation: { reflect: true },
    turns: { state: true },
    draft: { state: true },
    attached: { state: true }
  }

  /**
   * The conversation's ID: set to continue one (its earlier turns are read and shown); set by the
   * element once its first answer starts.
   */
  declare conversation: string | undefined
  declare turns: Array<Turn>
  declare draft: string
  declare attached: ReadonlyArray<Attached>
  private running: AbortController | undefined
  /** The conversation whose turns are shown (none for a new one): set by an answer's start or by a read. */
  private shown: string | undefined

  constructor() {
    super()
    this.turns = []
    this.draft = ""
    this.attached = []
  }

  /**
   * A conversation given by the page: its earlier turns, those a retry replaced left out; none when
   * the page takes the conversation away (a new one starts with the next question).
   */
  protected override async read() {
    // An attribute the page removed reads as null.
    const id = this.conversation ?? undefined
    if (id === this.shown) return
    const earlier = id === undefined
      ? []
      : (await this.client.requestsOf(id)).filter((request) => request.replacedBy === null)
    if ((this.conversation ?? undefined) !== id) return
    this.turns = earlier.map(turnOf)
    this.shown = id
  }

  override willUpdate(changed: PropertyValues<this>) {
    // The first one is read when the element connects.
    if (changed.has("conversation") && this.hasUpdated) void this.load()
  }

  /** Sends content items as the next question; `shown` is what the conversation shows of it. */
  async ask(content: ReadonlyArray<ContentItem>, shown?: string) {
    if (this.running) return
    const images = content.flatMap((item) => (item.type === "image" ? [{ name: "", dataUrl: item.value }] : []))
    const text = shown ?? content.flatMap((item) => (item.type === "text" ? [item.value] : [])).join("\n")
    const turn: Turn = { question: { text, images }, answer: "", status: "RUNNING" }
    this.turns = [...this.turns, turn]
    const running = (this.running = new AbortController())
    const update = () => (this.turns = [...this.turns])
    try {
      await this.client.ask(content, this.conversation, (event) => this.apply(turn, event, update), running.signal)
    } catch (error) {
      if (turn.status === "RUNNING") {
        turn.status = running.signal.aborted ? "STOPPED" : "FAILED"
        if (!running.signal.aborted) turn.error = (error as Error).message
      }
    } finally {
      this.running = undefined
      update()
    }
  }

  private apply(turn: Turn, { data, event }: StreamEvent, update: () => void) {
    if (event === "start") {
      turn.requestId = data.requestId
      if (this.conversation !== data.conversationId) {
        this.shown = data.conversationId
        this.conversation = data.conversationId
        this.emit("chat-conversation", { conversationId: data.conversationId })
      }
    } else if (event === "delta") {
      turn.answer += data.text
    } else if (event === "done") {
      turn.status = data.status
      this.emit("chat-answer", { requestId: data.requestId, conversationId: data.conversationId, status: data.status })
    } else if (event === "error") {
      turn.status = "FAILED"
      turn.error = data.message
      this.emit("chat-error", data)
    }
    update()
  }

  private emit(name: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }

  /** Stops the answer being generated: the gateway keeps what was written so far. */
  async stop() {
    if (this.conversation && this.turns.at(-1)?.requestId) await this.client.stop(this.conversation)
    else this.running?.abort()
  }

  private async send() {
    const text = this.draft.trim()
    if (text === "" && this.attached.length === 0) return
    const content: Array<ContentItem> = [
      ...(text ? [{ type: "text" as const, value: text }] : []),
      ...this.attached.map((image) => ({ type: "image" as const, value: image.dataUrl }))
    ]
    this.draft = ""
    this.attached = []
    await this.ask(content)
  }

  private async attach(input: HTMLInputElement) {
    const files = [...(input.files ?? [])]
    input.value = ""
    this.attached = [...this.attached, ...(await Promise.all(files.map(readAsDataUrl)))]
  }

  private async giveFeedback(turn: Turn, feedback: "GOOD" | "BAD") {
    await this.client.feedback(turn.requestId!, feedback)
    turn.feedback = feedback
    turn.thanked = true
    this.turns = [...this.turns]
  }

  private renderTurn(turn: Turn) {
    const t = this.t
    return html`
      <li class="question" aria-label=${t("you")}>
        ${turn.question.text ? html`<p>${turn.question.text}</p>` : nothing}
        ${turn.question.images.map((image) => html`<img class="thumbnail" src=${image.dataUrl} alt=${image.name} />`)}
      </li>
      <li class="answer" aria-label=${t("assistant")} aria-busy=${turn.status === "RUNNING"}>
        <div class="markdown">${unsafeHTML(renderMarkdown(turn.answer))}</div>
        ${turn.status === "RUNNING" && turn.answer === "" ? html`<p class="pending">${t("generating")}</p>` : nothing}
        ${turn.status === "STOPPED" ? html`<p class="note">${t("stopped")}</p>` : nothing}
        ${turn.status === "FAILED" ? html`<p role="alert">${t("failed", { message: turn.error ?? "" })}</p>` : nothing}
        ${
      turn.status === "COMPLETED" && turn.requestId
        ? html`<div class="feedback">
              <button aria-label=${t("good")} title=${t("good")} aria-pressed=${turn.feedback === "GOOD"}
                @click=${() => this.giveFeedback(turn, "GOOD")}>${icon(THUMB_UP)}</button>
              <button aria-label=${t("bad")} title=${t("bad")} aria-pressed=${turn.feedback === "BAD"}
                @click=${() => this.giveFeedback(turn, "BAD")}>${icon(THUMB_DOWN)}</button>
              ${turn.thanked ? html`<span class="note" role="status">${t("feedbackSaved")}</span>` : nothing}
            </div>`
        : nothing
    }
      </li>`
  }

  override render() {
    const t = this.t
    const busy = this.running !== undefined
    return html`
      ${this.error ? html`<p role="alert">${t("loadFailed", { message: this.error })}</p>` : nothing}
      <ol class="turns" aria-label=${t("conversation")} aria-live="polite">
        ${
      this.turns.length === 0
        ? html`<li class="empty">${t("empty")}</li>`
        : this.turns.map((turn) => this.renderTurn(turn))
    }
      </ol>
      ${
      this.attached.length > 0
        ? html`<div class="attached">${
          this.attached.map((image, i) =>
            html`<span class="chip"><img class="thumbnail" src=${image.dataUrl} alt=${image.name} />
              <button aria-label=${t("removeImage", { name: image.name })}
                @click=${() => (this.attached = this.attached.filter((_, j) => j !== i))}>×</button></span>`
          )
        }</div>`
        : nothing
    }
      <form class="composer" @submit=${(e: Event) => (e.preventDefault(), this.send())}>
        <label class="attach" title=${t("attach")}>
          ${icon(IMAGE)}
          <input type="file" accept=${IMAGE_TYPES} multiple aria-label=${t("attach")}
            @change=${(e: Event) => this.attach(e.target as HTMLInputElement)} />
        </label>
        <textarea rows="2" aria-label=${t("question")} placeholder=${t("placeholder")} .value=${this.draft}
          @input=${(e: Event) => (this.draft = (e.target as HTMLTextAreaElement).value)}
          @keydown=${(e: KeyboardEvent) => {
      if (e.key === "Enter" && !e.shiftKey) {
        e.preventDefault()
        void this.send()
      }
    }}></textarea>
        ${
      busy
        ? html`<button type="button" class="stop" @click=${() => this.stop()}>${t("stop")}</button>`
        : html`<button type="submit" class="primary">${t("send")}</button>`
    }
      </form>`
  }

  static override styles = [
    GatewayElement.sharedStyles,
    css`
      :host { display: flex; flex-direction: column; gap: 8px; min-height: 320px; }
      .turns { list-style: none; margin: 0; padding: 8px; flex: 1; overflow: auto; display: flex; flex-direction: column; gap: 10px; }
      .empty { color: var(--docstack-muted, #656d76); text-align: center; margin: auto; }
      .question { align-self: flex-end; max-width: 80%; background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 12%, #fff);
        border-radius: 12px 12px 2px 12px; padding: 6px 12px; }
      .question p { margin: 0; white-space: pre-wrap; }
      .answer { align-self: flex-start; max-width: 90%; background: var(--docstack-surface, #fff);
        border: 1px solid var(--docstack-border, #d0d7de); border-radius: 12px 12px 12px 2px; padding: 6px 12px; }
      .markdown > :first-child { margin-top: 0; }
      .markdown > :last-child { margin-bottom: 0; }
      .markdown pre { background: #f6f8fa; padding: 8px; border-radius: 6px; overflow: auto; }
      .markdown code { font: 12px ui-monospace, monospace; }
      .markdown table { border-collapse: collapse; }
      .markdown th, .markdown td { border: 1px solid var(--docstack-border, #d0d7de); padding: 2px 8px; }
      .markdown img { max-width: 100%; }
      .thumbnail { max-width: 160px; max-height: 120px; border-radius: 6px; display: block; margin-top: 4px; }
      .pending, .note { color: var(--docstack-muted, #656d76); font-style: italic; margin: 4px 0 0; }
      .feedback { display: flex; gap: 4px; align-items: center; margin-top: 6px; }
      .feedback button { padding: 2px 6px; display: inline-flex; color: var(--docstack-muted, #656d76); }
      .feedback button[aria-pressed="true"] { background: color-mix(in srgb, var(--docstack-accent, #0b62d6) 20%, #fff);
        border-color: var(--docstack-accent, #0b62d6); }
      .attached { display: flex; gap: 8px; padding: 0 8px; flex-wrap: wrap; }
      .chip { position: relative; }
      .chip .thumbnail { max-height: 60px; }
      .chip button { position: absolute; top: -6px; right: -6px; padding: 0 6px; border-radius: 50%; }
      .composer { display: flex; gap: 8px; align-items: flex-end; padding: 8px; border-top: 1px solid var(--docstack-border, #d0d7de); }
      .composer textarea { flex: 1; resize: vertical; font: inherit; padding: 6px 8px;
        border: 1px solid var(--docstack-border, #d0d7de); border-radius: 6px; }
      .attach { cursor: pointer; padding: 6px; position: relative; display: inline-flex; color: var(--docstack-muted, #656d76); }
      .attach svg { width: 22px; height: 22px; }
      .attach input { position: absolute; inset: 0; opacity: 0; width: 100%; cursor: pointer; }
      .attach:focus-within { outline: 2px solid var(--docstack-accent, #0b62d6); border-radius: 6px; }
      .stop { border-color: var(--docstack-danger, #b42318); color: var(--docstack-danger, #b42318); }
    `
  ]
}
