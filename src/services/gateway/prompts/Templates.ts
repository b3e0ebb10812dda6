/**
 * Prompt templates: Handlebars in an environment of its own, for plain text sent to an LLM (no
 * HTML escaping, unknown variables render empty, prototype access refused as Handlebars does by
 * default since 4.6). Syntax and rendering errors are BAD_REQUEST with their position.
 */
import { Effect } from "effect"
import Handlebars from "handlebars"
import { BadRequest } from "../../../schemas/gateway/GatewayErrors.ts"
import { CompletionItem, TemplatingCompletion } from "../../../schemas/gateway/Prompts.ts"

/** What a template sees besides its variables. */
export interface RenderContext {
  readonly tenantId: string
  readonly userId: string
}

const isBlank = (value: unknown) =>
  value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0)
const text = (value: unknown) => (value === undefined || value === null ? "" : String(value))
/** Handlebars passes its options object last; a helper's real arguments are the ones before it. */
const args = (all: ReadonlyArray<unknown>) => all.slice(0, -1)

const pad = (n: number) => String(n).padStart(2, "0")
const formatDate = (value: unknown, format: unknown) => {
  const date = value === undefined || value === null || value === "" ? new Date() : new Date(value as string | number)
  if (Number.isNaN(date.getTime())) return text(value)
  switch (format) {
    case "date":
      return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
    case "time":
      return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
    default:
      return date.toISOString()
  }
}

const HELPERS: ReadonlyArray<
  {
    readonly name: string
    readonly description: string
    readonly example: string
    readonly fn?: Handlebars.HelperDelegate
  }
> = [
  {
    name: "if",
    description: "Block shown when the value is truthy (not false, empty, 0, null); {{else}} otherwise",
    example: "{{#if payload.topic}}About {{payload.topic}}{{else}}General{{/if}}"
  },
  {
    name: "unless",
    description: "Block shown when the value is falsy",
    example: "{{#unless payload.short}}Answer in detail.{{/unless}}"
  },
  {
    name: "each",
    description:
      "Repeats the block for each element of a list or entry of an object (@index, @key, @first, @last, this)",
    example: "{{#each payload.items}}- {{this}}\n{{/each}}"
  },
  { name: "with", description: "Block evaluated with the value as context", example: "{{#with user}}{{id}}{{/with}}" },
  {
    name: "lookup",
    description: "A property or element by a dynamic key",
    example: "{{lookup payload.labels payload.lang}}"
  },
  {
    name: "upper",
    description: "Upper-cases a text",
    example: "{{upper payload.name}}",
    fn: (...all) => text(args(all)[0]).toUpperCase()
  },
  {
    name: "lower",
    description: "Lower-cases a text",
    example: "{{lower payload.name}}",
    fn: (...all) => text(args(all)[0]).toLowerCase()
  },
  {
    name: "date",
    description:
      "A date in UTC: ISO 8601 by default, \"date\" (YYYY-MM-DD) or \"time\" (HH:MM:SS); without a value, now",
    example: "{{date now \"date\"}}",
    fn: (...all) => {
      const [value, format] = args(all)
      return formatDate(value, format)
    }
  },
  {
    name: "json",
    description: "A value as JSON text",
    example: "{{json payload}}",
    fn: (...all) => JSON.stringify(args(all)[0] ?? null)
  },
  {
    name: "default",
    description: "The value, or the fallback when the value is missing or empty",
    example: "{{default payload.language \"English\"}}",
    fn: (...all) => {
      const [value, fallback] = args(all)
      return isBlank(value) ? text(fallback) : text(value)
    }
  }
]

const VARIABLES: ReadonlyArray<CompletionItem> = [
  new CompletionItem({
    name: "payload",
    description: "The variables sent with the request (the payload of a prompt content item, or the render body)",
    example: "{{json payload}}"
  }),
  new CompletionItem({
    name: "payload.*",
    description: "One variable of the payload; every variable is also available at top level ({{name}})",
    example: "{{payload.name}}"
  }),
  new CompletionItem({ name: "user.id", description: "The ID of the user making the request", example: "{{user.id}}" }),
  new CompletionItem({ name: "tenant.id", description: "The ID of the tenant", example: "{{tenant.id}}" }),
  new CompletionItem({
    name: "now",
    description: "The time of rendering, ISO 8601 in UTC",
    example: "{{date now \"date\"}}"
  })
]

const COMPILE_OPTIONS: CompileOptions = { noEscape: true, strict: false, knownHelpersOnly: false }

/** "Parse error on line 2:\n<near>\n----^\nExpecting ..." → one readable sentence with the position. */
const describe = (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error)
  const parse = /^Parse error on line (\d+):\n(.*)\n(-*)\^\n([\s\S]*)$/.exec(message)
  if (parse) {
    const [, line, near, , expecting] = parse
    return `Template syntax error at line ${line} near '${near}': ${expecting}`
  }
  const located = error as { lineNumber?: number; column?: number }
  return typeof located.lineNumber === "number"
    ? `Template error at line ${located.lineNumber}, column ${(located.column ?? 0) + 1}: ${message}`
    : `Template error: ${message}`
}

type CompileOptions = Parameters<typeof Handlebars.compile>[1]

export class Templates extends Effect.Service<Templates>()("gateway/Templates", {
  sync: () => {
    const engine = Handlebars.create()
    engine.unregisterHelper("log")
    for (const helper of HELPERS) if (helper.fn) engine.registerHelper(helper.name, helper.fn)

    const completion = new TemplatingCompletion({
      engine: "handlebars",
      helpers: HELPERS.map(({ description, example, name }) => new CompletionItem({ name, description, example })),
      variables: VARIABLES
    })

    return {
      completion,

      /** Checks the syntax only (on every write of a template). */
      check: Effect.fn("Templates.check")((template: string) =>
        Effect.try({
          try: () => void engine.parse(template),
          catch: (error) => new BadRequest({ message: describe(error) })
        })
      ),

      render: Effect.fn("Templates.render")((
        template: string,
        variables: Readonly<Record<string, unknown>>,
        context: RenderContext
      ) =>
        Effect.try({
          try: () =>
            engine.compile(template, COMPILE_OPTIONS)({
              ...variables,
              payload: variables,
              user: { id: context.userId },
              tenant: { id: context.tenantId },
              now: new Date().toISOString()
            }),
          catch: (error) => new BadRequest({ message: describe(error) })
        })
      )
    }
  }
}) {}
