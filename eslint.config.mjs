// One formatter and one linter for the whole repository (STYLE.md): ESLint's and typescript-eslint's
// recommended rules, and Effect's dprint rule as the formatter (line width 120), configured as the
// Effect repositories configure it. `npm run lint` checks (npm test runs it), `npm run format` fixes.
import * as effectEslint from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules/**", "data/**", "bench/tmp/**", "test/corpus/**", ".scratch/**", "web/dist/**"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  ...effectEslint.configs.dprint,
  {
    languageOptions: {
      globals: {
        console: "readonly",
        process: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setImmediate: "readonly",
        performance: "readonly",
        fetch: "readonly"
      }
    },
    rules: {
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }],
      // Effect's packages of modules are imported module by module: a package's index loads every
      // module it names, and @effect/platform's holds the Scalar and Swagger pages' scripts (about
      // 20 MB of a process's heap, measured on an idle broker) whether they are served or not.
      "@effect/no-import-from-barrel-package": ["error", {
        packageNames: [
          "@effect/platform",
          "@effect/platform-node",
          "@effect/sql",
          "@effect/sql-pg",
          "@effect/ai",
          "@effect/ai-openai",
          "@effect/ai-anthropic"
        ]
      }],
      // Control characters in patterns are deliberate here: the code finds them to refuse or strip them.
      "no-control-regex": "off",
      "@typescript-eslint/no-unused-vars": ["error", {
        argsIgnorePattern: "^_",
        varsIgnorePattern: "^_",
        caughtErrors: "none"
      }]
    }
  },
  {
    // Browser code: TypeScript knows the DOM's names (lib "DOM"); ESLint's list of globals does not.
    files: ["web/**"],
    rules: { "no-undef": "off" }
  },
  {
    // Tests read answers as a client does: JSON of whatever shape came back.
    files: ["test/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" }
  }
)
