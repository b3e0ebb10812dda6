/**
 * The keyboard shortcuts (docs/viewer.md "Keyboard shortcuts" lists them): what a key means, apart
 * from what the viewer then does.
 */

export type Command =
  | { readonly kind: "page"; readonly to: "next" | "previous" | "first" | "last" }
  | { readonly kind: "screen"; readonly direction: 1 | -1 }
  | { readonly kind: "zoom"; readonly to: "in" | "out" | "reset" }
  | { readonly kind: "find" }
  | { readonly kind: "find-move"; readonly direction: 1 | -1 }
  | { readonly kind: "rotate" }

/**
 * The command of a key press, or undefined to leave it to the browser (arrow keys scroll the
 * focused page list natively; a key typed in a text field is the field's).
 */
export const commandOf = (event: KeyboardEvent, inTextField: boolean): Command | undefined => {
  const control = event.ctrlKey || event.metaKey
  if (control && !event.altKey) {
    switch (event.key) {
      case "f":
      case "F":
        return { kind: "find" }
      case "+":
      case "=":
        return { kind: "zoom", to: "in" }
      case "-":
        return { kind: "zoom", to: "out" }
      case "0":
        return { kind: "zoom", to: "reset" }
      case "g":
      case "G":
        return { kind: "find-move", direction: event.shiftKey ? -1 : 1 }
    }
    return undefined
  }
  if (event.key === "F3") return { kind: "find-move", direction: event.shiftKey ? -1 : 1 }
  if (inTextField || event.altKey) return undefined
  switch (event.key) {
    case "PageDown":
    case " ":
      return { kind: "screen", direction: event.shiftKey && event.key === " " ? -1 : 1 }
    case "PageUp":
      return { kind: "screen", direction: -1 }
    case "Home":
      return { kind: "page", to: "first" }
    case "End":
      return { kind: "page", to: "last" }
    case "n":
    case "j":
    case "ArrowRight":
      return { kind: "page", to: "next" }
    case "p":
    case "k":
    case "ArrowLeft":
      return { kind: "page", to: "previous" }
    case "r":
      return { kind: "rotate" }
    case "+":
    case "=":
      return { kind: "zoom", to: "in" }
    case "-":
      return { kind: "zoom", to: "out" }
  }
  return undefined
}
