/**
 * Which provider holds a document (documents' HoldingProvider port): the provider recorded when the
 * document was opened through it.
 */
import { Effect, Layer, Option } from "effect"
import { HoldingProvider } from "../documents/HoldingProvider.ts"
import { ProviderStore } from "./ProviderStore.ts"

export const HoldingProviderLive = Layer.effect(
  HoldingProvider,
  Effect.map(ProviderStore, (store) => ({
    of: (rootId: string) => store.find(rootId).pipe(Effect.map(Option.map((record) => record.provider)))
  }))
).pipe(Layer.provide(ProviderStore.Default))
