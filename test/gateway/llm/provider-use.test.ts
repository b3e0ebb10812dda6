/**
 * Which provider configuration a request uses, with its key decrypted (the only place a key is
 * ever read back): the one named, the tenant's default, or its only one.
 */
import { expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { GatewayServicesLive } from "../../../src/layers/Gateway.ts"
import { InfrastructureLive } from "../../../src/layers/Infrastructure.ts"
import { newDataDir } from "../../../src/layers/Test.ts"
import { ProviderConfigInput } from "../../../src/schemas/gateway/LlmProviders.ts"
import { ProviderConfigs } from "../../../src/services/gateway/llm/ProviderConfigs.ts"

const services = GatewayServicesLive.pipe(
  Layer.provideMerge(InfrastructureLive),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["DATA_DIR", newDataDir()], ["GATEWAY_MASTER_KEY", "a test master key"]]))))
)

layer(services, { timeout: 60_000 })("ProviderConfigs.forUse", (it) => {
  it.effect("names, defaults, the only one, and none", () =>
    Effect.gen(function*() {
      const configs = yield* ProviderConfigs
      const none = yield* configs.forUse("t1", undefined).pipe(Effect.flip)
      expect(none._tag).toBe("LLM_PROVIDER_NOT_FOUND")

      yield* configs.create("t1", ProviderConfigInput.make({ id: "a", type: "openai", model: "m1", apiKey: "sk-secret-key-aaaa" }))
      const only = yield* configs.forUse("t1", undefined)
      expect(only.config.id).toBe("a")
      expect(only.apiKey).toBe("sk-secret-key-aaaa")
      expect(only.config.apiKey).toBe("****aaaa")

      yield* configs.create("t1", ProviderConfigInput.make({ id: "b", type: "anthropic", model: "m2" }))
      expect((yield* configs.forUse("t1", undefined).pipe(Effect.flip)).message).toMatch(/none is the default/)
      expect((yield* configs.forUse("t1", "b")).apiKey).toBeNull()
      yield* configs.update("t1", "b", ProviderConfigInput.make({ id: "b", type: "anthropic", model: "m2", isDefault: true }))
      expect((yield* configs.forUse("t1", undefined)).config.id).toBe("b")
      // Another tenant sees none of it.
      expect((yield* configs.forUse("t2", "a").pipe(Effect.flip))._tag).toBe("LLM_PROVIDER_NOT_FOUND")
    }))
})
