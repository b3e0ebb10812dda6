/**
 * Every string the viewer shows, in one catalog per language. English is the reference: a
 * catalog must have each of its keys (the type checks it), so no string is left untranslated.
 */
const en = {
  // States
  loading: "Loading document…",
  converting: "Converting the document for viewing…",
  convertingState: "Converting the document for viewing ({state}, {seconds} s)…",
  notFound: "This document does not exist or is no longer available.",
  conversionFailed: "The document could not be converted: {message}",
  passwordProtected: "This document is protected by a password and cannot be shown.",
  failed: "The document could not be opened: {message}",
  noDocument: "No document is open.",
  emptyContainer: "This container holds no document.",
  openPart: "Choose a part of this document in the side panel.",
  // Toolbar
  sidebar: "Show or hide the side panel",
  firstPage: "First page",
  previousPage: "Previous page",
  nextPage: "Next page",
  lastPage: "Last page",
  pageNumber: "Page number",
  ofPages: "of {count}",
  zoomOut: "Zoom out",
  zoomIn: "Zoom in",
  zoom: "Zoom",
  pageWidth: "Page width",
  pageFit: "Whole page",
  widthShort: "Width",
  pageShort: "Page",
  actualSize: "Actual size",
  rotatePage: "Rotate this page clockwise",
  rotateAll: "Rotate all pages clockwise",
  find: "Find in document",
  download: "Download",
  downloadOriginal: "Download the original file",
  downloadPdf: "Download as PDF",
  print: "Print",
  fullScreen: "Full screen",
  darkMode: "Night reading (dark pages)",
  more: "More tools",
  // Panels
  thumbnails: "Thumbnails",
  bookmarks: "Bookmarks",
  parts: "Parts",
  noBookmarks: "This document has no bookmarks.",
  loadingBookmarks: "Loading bookmarks…",
  bookmarksFailed: "The bookmarks could not be read: {message}",
  kindEmail: "Email",
  kindPdf: "PDF",
  kindImage: "Image",
  kindOffice: "Office document",
  kindOther: "File",
  kindFolder: "Folder",
  expand: "Expand",
  collapse: "Collapse",
  page: "Page {number}",
  pages: "Pages",
  // Find
  findInput: "Text to find",
  findPrevious: "Previous match",
  findNext: "Next match",
  matchCase: "Match case",
  matchAccents: "Match accents",
  regex: "Regular expression",
  closeFind: "Close the find bar",
  findCount: "{current} of {total}",
  findSearching: "{total} found, searching…",
  findNone: "No match",
  findError: "Cannot search: {message}",
  // Printing
  printPreparing: "Preparing the pages for printing…"
}

export type MessageKey = keyof typeof en
export type Catalog = Readonly<Record<MessageKey, string>>

const fr: Catalog = {
  loading: "Chargement du document…",
  converting: "Conversion du document pour l’affichage…",
  convertingState: "Conversion du document pour l’affichage ({state}, {seconds} s)…",
  notFound: "Ce document n’existe pas ou n’est plus disponible.",
  conversionFailed: "Le document n’a pas pu être converti : {message}",
  passwordProtected: "Ce document est protégé par un mot de passe et ne peut pas être affiché.",
  failed: "Le document n’a pas pu être ouvert : {message}",
  noDocument: "Aucun document n’est ouvert.",
  emptyContainer: "Ce conteneur ne contient aucun document.",
  openPart: "Choisissez une partie de ce document dans le panneau latéral.",
  sidebar: "Afficher ou masquer le panneau latéral",
  firstPage: "Première page",
  previousPage: "Page précédente",
  nextPage: "Page suivante",
  lastPage: "Dernière page",
  pageNumber: "Numéro de page",
  ofPages: "sur {count}",
  zoomOut: "Zoom arrière",
  zoomIn: "Zoom avant",
  zoom: "Zoom",
  pageWidth: "Pleine largeur",
  pageFit: "Page entière",
  widthShort: "Largeur",
  pageShort: "Page",
  actualSize: "Taille réelle",
  rotatePage: "Faire pivoter cette page vers la droite",
  rotateAll: "Faire pivoter toutes les pages vers la droite",
  find: "Rechercher dans le document",
  download: "Télécharger",
  downloadOriginal: "Télécharger le fichier d’origine",
  downloadPdf: "Télécharger en PDF",
  print: "Imprimer",
  fullScreen: "Plein écran",
  darkMode: "Lecture de nuit (pages sombres)",
  more: "Plus d’outils",
  thumbnails: "Miniatures",
  bookmarks: "Signets",
  parts: "Parties",
  noBookmarks: "Ce document n’a pas de signets.",
  loadingBookmarks: "Chargement des signets…",
  bookmarksFailed: "Les signets n’ont pas pu être lus : {message}",
  kindEmail: "Courriel",
  kindPdf: "PDF",
  kindImage: "Image",
  kindOffice: "Document bureautique",
  kindOther: "Fichier",
  kindFolder: "Dossier",
  expand: "Déplier",
  collapse: "Replier",
  page: "Page {number}",
  pages: "Pages",
  findInput: "Texte à rechercher",
  findPrevious: "Occurrence précédente",
  findNext: "Occurrence suivante",
  matchCase: "Respecter la casse",
  matchAccents: "Respecter les accents",
  regex: "Expression régulière",
  closeFind: "Fermer la barre de recherche",
  findCount: "{current} sur {total}",
  findSearching: "{total} trouvées, recherche en cours…",
  findNone: "Aucune occurrence",
  findError: "Recherche impossible : {message}",
  printPreparing: "Préparation des pages pour l’impression…"
}

const catalogs: Readonly<Record<string, Catalog>> = { en, fr }

export type Language = "en" | "fr"

/** The language to use: the one asked for when we have it, else the browser's, else English. */
export const languageOf = (asked: string | null | undefined): Language => {
  for (const tag of [asked, ...(globalThis.navigator?.languages ?? [])]) {
    const base = tag?.toLowerCase().split("-")[0]
    if (base === "en" || base === "fr") return base
  }
  return "en"
}

/** A translator for `language`: `t("page", { number: 3 })` → "Page 3". */
export const translator = (language: Language) => {
  const catalog = catalogs[language] ?? en
  return (key: MessageKey, params: Readonly<Record<string, string | number>> = {}) =>
    catalog[key].replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole))
}

export type Translate = ReturnType<typeof translator>
