/**
 * The gateway's native tools (GET /admin/tools): tools on the document a conversation (or a plan
 * execution) is about, answered by the broker: its outline and layout, a page's text, a search,
 * and a page's image for a model that takes images. Pages are numbered from 1 for the model, as
 * people number them; the broker's are from 0.
 */
import * as Tool from "@effect/ai/Tool"
import { Config, Effect, Encoding, Schema } from "effect"
import type { Bookmark } from "../../../schemas/broker/Content.ts"
import { type JsonSchemaObject, ToolInfo } from "../../../schemas/gateway/Tools.ts"
import { BrokerDocuments } from "./BrokerDocuments.ts"
import { type GatewayTool, type ToolContext, ToolFailed, type ToolOutput } from "./GatewayTool.ts"

export const NativeToolsConfig = Config.all({
  /** The longest text a tool gives the model (a page's text is cut there, saying so). */
  resultMaxChars: Config.integer("GATEWAY_TOOL_RESULT_MAX_CHARS").pipe(Config.withDefault(20_000)),
  /** Most passages a search gives the model. */
  searchMaxHits: Config.integer("GATEWAY_TOOL_SEARCH_MAX_HITS").pipe(Config.withDefault(20)),
  /** Width in pixels of the page image given to a vision model. */
  pageImageWidth: Config.integer("GATEWAY_TOOL_PAGE_IMAGE_WIDTH").pipe(Config.withDefault(1024))
})

const PageNumber = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
  description: "The page, numbered from 1"
})

type Need = "document" | "vision"

interface NativeTool<A, I> {
  readonly name: string
  readonly description: string
  readonly parameters: Schema.Schema<A, I>
  readonly needs: ReadonlyArray<Need>
  readonly run: (args: A, documentId: string) => Effect.Effect<ToolOutput, ToolFailed>
}

/** The arguments' JSON Schema as a model is given it (no `$schema`). */
const jsonSchemaOf = (schema: Schema.Schema.Any) =>
  Tool.getJsonSchemaFromSchemaAst(schema.ast) as unknown as JsonSchemaObject

const define = <A, I>(tool: NativeTool<A, I>): NativeTool<unknown, unknown> =>
  tool as unknown as NativeTool<unknown, unknown>

/** A bookmark tree as the model reads it: titles with their pages, nested. */
const outlineOf = (bookmarks: ReadonlyArray<Bookmark>): Array<unknown> =>
  bookmarks.map((b) => ({
    title: b.title,
    pageNumber: b.page + 1,
    ...(b.children.length > 0 ? { children: outlineOf(b.children) } : {})
  }))

export class NativeTools extends Effect.Service<NativeTools>()("gateway/NativeTools", {
  effect: Effect.gen(function*() {
    const broker = yield* BrokerDocuments
    const limits = yield* NativeToolsConfig

    const cut = (text: string) =>
      text.length <= limits.resultMaxChars
        ? { text }
        : { text: text.slice(0, limits.resultMaxChars), truncated: `cut at ${limits.resultMaxChars} characters` }

    const pageCount = (documentId: string) =>
      Effect.flatMap(broker.layout(documentId), (layout) =>
        "pageDimensionsList" in layout
          ? Effect.succeed(layout.pageDimensionsList.length)
          : Effect.fail(
            new ToolFailed({ message: `'${documentId}' is a container of documents, not a document with pages` })
          ))

    /** The broker's 0-based page, after checking the page exists (the model is told how many there are). */
    const pageIndex = (documentId: string, pageNumber: number) =>
      Effect.flatMap(pageCount(documentId), (count) =>
        pageNumber <= count
          ? Effect.succeed(pageNumber - 1)
          : Effect.fail(new ToolFailed({ message: `The document has ${count} pages; there is no page ${pageNumber}` })))

    const tools: ReadonlyArray<NativeTool<unknown, unknown>> = [
      define({
        name: "document_outline",
        description:
          "The layout and outline of the document the conversation is about: its title, its number of pages and their sizes, and its bookmarks (titles with the pages they lead to).",
        parameters: Schema.Struct({}),
        needs: ["document"],
        run: (_, documentId) =>
          Effect.gen(function*() {
            const layout = yield* broker.layout(documentId)
            if (!("pageDimensionsList" in layout)) {
              return { result: { title: layout.documentTitle, parts: layout.children.map((c) => c.documentTitle) } }
            }
            const { bookmarks } = yield* broker.bookmarks(documentId)
            const sizes = [
              ...new Set(layout.pageDimensionsList.map((p) => `${Math.round(p.width)}x${Math.round(p.height)} pt`))
            ]
            return {
              result: {
                title: layout.documentTitle,
                pageCount: layout.pageDimensionsList.length,
                pageSizes: sizes,
                outline: outlineOf(bookmarks)
              }
            }
          })
      }),
      define({
        name: "document_page_text",
        description: "The text of one page of the document the conversation is about, in reading order.",
        parameters: Schema.Struct({ pageNumber: PageNumber }),
        needs: ["document"],
        run: ({ pageNumber }: { readonly pageNumber: number }, documentId) =>
          Effect.gen(function*() {
            const page = yield* pageIndex(documentId, pageNumber)
            const text = yield* broker.pageText(documentId, page)
            // Runs of one paragraph on one line, paragraphs on lines of their own.
            const paragraphs = new Map<number, Array<string>>()
            for (const run of text.positionTextList) {
              paragraphs.set(run.paragraphId, [...(paragraphs.get(run.paragraphId) ?? []), run.text])
            }
            const joined = [...paragraphs.values()].map((runs) => runs.join(" ")).join("\n")
            return { result: { pageNumber, ...cut(joined) }, sources: [{ documentId, pageNumber }] }
          })
      }),
      define({
        name: "document_search",
        description:
          "Searches the document the conversation is about for a word or phrase (case and accents ignored): each passage found with its page number.",
        parameters: Schema.Struct({ query: Schema.String.pipe(Schema.minLength(1)) }),
        needs: ["document"],
        run: ({ query }: { readonly query: string }, documentId) =>
          Effect.gen(function*() {
            const found = yield* broker.search(documentId, query)
            const hits = Object.values(found.pagesResults).flat().map(({ positionText }) => positionText)
            const kept = hits.slice(0, limits.searchMaxHits)
            const sources = kept.map((hit) => ({
              documentId,
              pageNumber: hit.pageNumber + 1,
              passage: {
                text: hit.text,
                position: { x: hit.position.x, y: hit.position.y, w: hit.position.w, h: hit.position.h }
              }
            }))
            return {
              result: {
                query,
                hits: kept.map((hit) => ({ pageNumber: hit.pageNumber + 1, text: hit.text })),
                ...(hits.length > kept.length ? { more: `${hits.length - kept.length} more passages not shown` } : {})
              },
              sources
            }
          })
      }),
      define({
        name: "document_page_image",
        description:
          "An image of one page of the document the conversation is about, to look at what its text does not say (figures, layout, handwriting).",
        parameters: Schema.Struct({ pageNumber: PageNumber }),
        needs: ["document", "vision"],
        run: ({ pageNumber }: { readonly pageNumber: number }, documentId) =>
          Effect.gen(function*() {
            const page = yield* pageIndex(documentId, pageNumber)
            const png = yield* broker.pageImage(documentId, page, limits.pageImageWidth)
            return {
              result: { pageNumber, image: "the page's image follows as the next message" },
              sources: [{ documentId, pageNumber }],
              image: { mediaType: "image/png", base64: Encoding.encodeBase64(png) }
            }
          })
      })
    ]

    const bind = (tool: NativeTool<unknown, unknown>, context: ToolContext): GatewayTool => {
      const decode = Schema.decodeUnknown(tool.parameters, { onExcessProperty: "ignore" })
      return {
        name: tool.name,
        description: tool.description,
        parameters: jsonSchemaOf(tool.parameters),
        call: (args) =>
          Effect.gen(function*() {
            const documentId = context.documentId
            if (documentId === undefined) {
              return yield* new ToolFailed({ message: `${tool.name} needs a document, and none is named here` })
            }
            const decoded = yield* decode(args ?? {}).pipe(
              Effect.mapError((error) =>
                new ToolFailed({ message: `Invalid arguments for ${tool.name}: ${error.message}` })
              )
            )
            return yield* tool.run(decoded, documentId)
          })
      }
    }

    const offeredIn = (tool: NativeTool<unknown, unknown>, context: ToolContext) =>
      tool.needs.every((need) => (need === "document" ? context.documentId !== undefined : context.vision))

    return {
      /** Every native tool, for GET /admin/tools. */
      list: () =>
        tools.map((tool) =>
          new ToolInfo({
            name: tool.name,
            description: tool.description,
            parameters: jsonSchemaOf(tool.parameters),
            needs: tool.needs
          })
        ),
      /** The native tool of that name bound to `context`, if there is one. */
      named: (name: string, context: ToolContext): GatewayTool | undefined => {
        const tool = tools.find((t) => t.name === name)
        return tool === undefined ? undefined : bind(tool, context)
      },
      /** The native tools whose needs `context` meets: what a request is offered. */
      offered: (context: ToolContext): ReadonlyArray<GatewayTool> =>
        tools.filter((tool) => offeredIn(tool, context)).map((tool) => bind(tool, context)),
      isNative: (name: string) => tools.some((t) => t.name === name)
    }
  }),
  dependencies: [BrokerDocuments.Default]
}) {}
