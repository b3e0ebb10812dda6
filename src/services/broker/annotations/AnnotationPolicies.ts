/**
 * The annotation creation policy (GET /annotation/policy): the built-in defaults, or a JSON file
 * named by ANNOTATION_POLICY_FILE whose top-level fields replace the defaults' (docs/annotations.md).
 * The file is read and checked once at start: a broken file stops the broker with the reason,
 * rather than serving a policy nobody wrote.
 */
import { Config, Effect, Option, Schema } from "effect"
import { readFileSync } from "node:fs"
import { AnnotationPolicy } from "../../../schemas/broker/Annotations.ts"

const names = (en: string, de: string, fr: string) => ({ en, de, fr })

export const DEFAULT_POLICY = new AnnotationPolicy({
  canCreateAnnotations: true,
  textAnnotationsSupportHtml: false,
  textAnnotationsSupportReply: true,
  textAnnotationsSupportStatus: true,
  textAnnotationsCommentSupportReply: true,
  annotationsSupportSecurity: false,
  availableSecurityLevels: [
    { symbolicName: "PUBLIC", localizedDisplayNames: names("Public", "Öffentlich", "Public") },
    { symbolicName: "INTERNAL", localizedDisplayNames: names("Internal", "Intern", "Interne") },
    { symbolicName: "CONFIDENTIAL", localizedDisplayNames: names("Confidential", "Vertraulich", "Confidentiel") }
  ],
  annotationTemplateCatalog: {
    annotationTemplates: [
      {
        name: "Approved",
        annotationType: "Stamp",
        contentTemplate: "APPROVED ${user} ${date}",
        annotationStyle: { fontColor: "#1E7B34", fontSize: 16, rotation: 0 }
      },
      {
        name: "Rejected",
        annotationType: "Stamp",
        contentTemplate: "REJECTED ${user} ${date}",
        annotationStyle: { fontColor: "#B3261E", fontSize: 16, rotation: 0 }
      },
      {
        name: "Reviewed",
        annotationType: "Stamp",
        contentTemplate: "REVIEWED ${user} ${date}",
        annotationStyle: { fontColor: "#1F4E99", fontSize: 16, rotation: 0 }
      },
      {
        name: "Note",
        annotationType: "Text",
        contentTemplate: "",
        annotationStyle: { fontColor: "#000000", fontSize: 12, rotation: 0 }
      },
      {
        name: "Comment",
        annotationType: "FreeText",
        contentTemplate: "",
        annotationStyle: { fontColor: "#000000", fontSize: 12, rotation: 0 }
      }
    ],
    waterMarkTemplates: [
      { name: "Confidential", annotationType: "FreeText", contentTemplate: "CONFIDENTIAL" },
      { name: "Draft", annotationType: "FreeText", contentTemplate: "DRAFT" },
      { name: "Copy", annotationType: "FreeText", contentTemplate: "COPY ${date}" }
    ]
  },
  annotationCreationRuleCatalog: {
    annotationCreationRules: [
      {
        ruleId: "redact-email-addresses",
        ruleName: "Redact e-mail addresses",
        annotationTemplate: { annotationType: "RedactText" },
        searchOptions: {
          searchText: "[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[A-Za-z]{2,}",
          regex: true,
          searchAction: "ALL_PAGES"
        }
      },
      {
        ruleId: "redact-ibans",
        ruleName: "Redact IBANs",
        annotationTemplate: { annotationType: "RedactText" },
        searchOptions: {
          searchText: "\\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\\b",
          regex: true,
          searchAction: "ALL_PAGES"
        }
      }
    ]
  },
  availableRedactReasons: [
    {
      symbolicName: "PERSONAL_DATA",
      displayName: names("Personal data", "Personenbezogene Daten", "Données personnelles")
    },
    { symbolicName: "TRADE_SECRET", displayName: names("Trade secret", "Geschäftsgeheimnis", "Secret commercial") },
    {
      symbolicName: "LEGAL_PRIVILEGE",
      displayName: names("Legal privilege", "Anwaltsgeheimnis", "Secret professionnel")
    },
    { symbolicName: "SECURITY", displayName: names("Security", "Sicherheit", "Sécurité") }
  ],
  defaultRedactReasons: ["PERSONAL_DATA"]
})

const PolicyFile = Schema.parseJson(Schema.partialWith(Schema.Struct(AnnotationPolicy.fields), { exact: true }))

export class AnnotationPolicies extends Effect.Service<AnnotationPolicies>()("docstack/AnnotationPolicies", {
  effect: Effect.gen(function*() {
    const file = yield* Config.option(Config.string("ANNOTATION_POLICY_FILE"))
    if (Option.isNone(file)) return { policy: DEFAULT_POLICY }
    const text = yield* Effect.try({
      try: () => readFileSync(file.value, "utf8"),
      catch: (error) =>
        `ANNOTATION_POLICY_FILE ${file.value} cannot be read: ${error instanceof Error ? error.message : String(error)}`
    }).pipe(Effect.orDieWith((message) => new Error(message)))
    const overrides = yield* Schema.decode(PolicyFile, { onExcessProperty: "error" })(text).pipe(
      Effect.orDieWith((error) =>
        new Error(`ANNOTATION_POLICY_FILE ${file.value} is not an annotation policy: ${error.message}`)
      )
    )
    return { policy: new AnnotationPolicy({ ...DEFAULT_POLICY, ...overrides }) }
  })
}) {}
