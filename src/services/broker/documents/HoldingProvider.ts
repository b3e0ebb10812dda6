/**
 * The port through which documents name the provider that holds a document opened through one
 * (POST /registry/documents or /registry/folders): its annotations and metadata are the provider's.
 * The providers feature implements it; documents stand below providers and only know this shape.
 */
import { Context, type Effect, type Option } from "effect"

export class HoldingProvider extends Context.Tag("docstack/HoldingProvider")<HoldingProvider, {
  /** The provider's name for the document whose root ID is `rootId`; none for an upload. */
  readonly of: (rootId: string) => Effect.Effect<Option.Option<string>>
}>() {}
