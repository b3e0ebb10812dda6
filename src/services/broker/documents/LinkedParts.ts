/**
 * The port through which a provider folder's files are opened: a folder lists links (the
 * parameters that fetch each file from its provider), and a link becomes a document (`<folder
 * id>/<index>`, registered like an upload) the first time anything asks for it. The providers
 * feature implements it; documents stand below providers and only know this shape.
 */
import { Context, type Effect } from "effect"
import type { DocumentNotFound, DocumentProcessingFailed } from "../../../schemas/broker/Document.ts"
import type { PartLink } from "../composite/Parts.ts"
import type { DocumentRecord } from "../registry/DocumentRegistry.ts"

export class LinkedParts extends Context.Tag("docstack/LinkedParts")<LinkedParts, {
  /** Fetches the linked file and registers it as document `id`; answers its record. */
  readonly open: (
    id: string,
    link: PartLink
  ) => Effect.Effect<DocumentRecord, DocumentNotFound | DocumentProcessingFailed>
}>() {}
