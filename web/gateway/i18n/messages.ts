/**
 * Every string the gateway's web components show, English (the reference: each catalog must have
 * its keys) and French.
 */
const en = {
  conversation: "Conversation",
  empty: "Ask a question to start.",
  question: "Your question",
  placeholder: "Ask a question… (Enter sends, Shift+Enter for a new line)",
  send: "Send",
  stop: "Stop",
  attach: "Attach images",
  removeImage: "Remove image {name}",
  you: "You",
  assistant: "Assistant",
  generating: "Generating the answer…",
  stopped: "Stopped.",
  failed: "The answer failed: {message}",
  good: "Good answer",
  bad: "Bad answer",
  feedbackSaved: "Thank you for your feedback.",
  quickPrompts: "Quick prompts",
  noQuickPrompts: "No quick prompt is available.",
  loadFailed: "Could not load: {message}",
  other: "Other",
  admin: "AI gateway administration",
  refresh: "Refresh",
  usage: "Usage",
  users: "Users",
  conversations: "Conversations",
  requests: "Requests",
  failedRequests: "Failed",
  tokens: "Tokens (in / out)",
  latency: "Mean latency",
  feedback: "Feedback (good / bad)",
  providers: "LLM providers",
  prompts: "Prompts",
  id: "ID",
  type: "Type",
  model: "Model",
  isDefault: "Default",
  name: "Name",
  category: "Category",
  activeVersion: "Active version",
  draft: "Draft",
  quickPrompt: "Quick prompt",
  yes: "yes",
  none: "none"
}

export type MessageKey = keyof typeof en

const fr: Record<MessageKey, string> = {
  conversation: "Conversation",
  empty: "Posez une question pour commencer.",
  question: "Votre question",
  placeholder: "Posez une question… (Entrée envoie, Maj+Entrée pour une nouvelle ligne)",
  send: "Envoyer",
  stop: "Arrêter",
  attach: "Joindre des images",
  removeImage: "Retirer l'image {name}",
  you: "Vous",
  assistant: "Assistant",
  generating: "Rédaction de la réponse…",
  stopped: "Arrêté.",
  failed: "La réponse a échoué : {message}",
  good: "Bonne réponse",
  bad: "Mauvaise réponse",
  feedbackSaved: "Merci pour votre avis.",
  quickPrompts: "Prompts rapides",
  noQuickPrompts: "Aucun prompt rapide n'est disponible.",
  loadFailed: "Chargement impossible : {message}",
  other: "Autres",
  admin: "Administration de la passerelle IA",
  refresh: "Actualiser",
  usage: "Utilisation",
  users: "Utilisateurs",
  conversations: "Conversations",
  requests: "Requêtes",
  failedRequests: "En échec",
  tokens: "Jetons (entrée / sortie)",
  latency: "Latence moyenne",
  feedback: "Avis (bons / mauvais)",
  providers: "Fournisseurs de LLM",
  prompts: "Prompts",
  id: "ID",
  type: "Type",
  model: "Modèle",
  isDefault: "Par défaut",
  name: "Nom",
  category: "Catégorie",
  activeVersion: "Version active",
  draft: "Brouillon",
  quickPrompt: "Prompt rapide",
  yes: "oui",
  none: "aucun"
}

/** A translator for the element's language (its `lang`, else the browser's), English by default. */
export const translatorFor = (element: HTMLElement) => {
  const asked = element.closest("[lang]")?.getAttribute("lang")
  const language = [asked, ...navigator.languages].map((tag) => tag?.toLowerCase().split("-")[0]).find((base) =>
    base === "en" || base === "fr"
  )
  const catalog = language === "fr" ? fr : en
  return (key: MessageKey, params: Readonly<Record<string, string | number>> = {}) =>
    catalog[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole))
}

export type Translate = ReturnType<typeof translatorFor>
