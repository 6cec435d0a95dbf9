// A freeform (custom) tool reaches a chat model as a function with one string argument, so the
// model calls it with arguments `{"input":"<text>"}`; the client wants the text itself.

export const customToolArguments = (input: string) => JSON.stringify({ input });

/** The text of a finished call; arguments of another shape are passed on as the model wrote them. */
export function customToolInput(argumentsJson: string): string {
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    const input = (parsed as { input?: unknown } | null)?.input;
    if (typeof input === "string") return input;
  } catch {
    // Not JSON: the model wrote the input itself.
  }
  return argumentsJson;
}

const opening = '{"input":"';
const escaped: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Decodes the input string out of a call's argument fragments as they stream, so each delta the
 * client gets is text, without waiting for the call to end. Arguments that do not open with the
 * input string give no deltas (the finished call's `customToolInput` says what they were).
 * Every fragment is read once: a long patch costs its length, not its square.
 */
export class CustomToolInputDecoder {
  private state: "opening" | "string" | "ended" = "opening";
  // Characters read but not decoded yet: the opening so far, or an escape cut by a fragment's end.
  private held = "";

  push(fragment: string): string {
    if (this.state === "ended") return "";
    let raw = this.held + fragment;
    this.held = "";
    if (this.state === "opening") {
      const start = /^\s*\{\s*"input"\s*:\s*"/.exec(raw);
      if (!start) {
        if (opening.startsWith(raw.replace(/\s+/g, ""))) this.held = raw;
        else this.state = "ended";
        return "";
      }
      raw = raw.slice(start[0].length);
      this.state = "string";
    }
    return this.decode(raw);
  }

  private decode(raw: string): string {
    let text = "";
    let from = 0;
    for (let index = 0; index < raw.length; index++) {
      const char = raw[index];
      if (char === '"') {
        this.state = "ended";
        return text + raw.slice(from, index);
      }
      if (char !== "\\") continue;
      text += raw.slice(from, index);
      const code = raw[index + 1];
      const length = code === "u" ? 6 : 2;
      if (index + length > raw.length) {
        this.held = raw.slice(index);
        return text;
      }
      text +=
        code === "u"
          ? String.fromCharCode(Number.parseInt(raw.slice(index + 2, index + 6), 16))
          : (escaped[code!] ?? code);
      index += length - 1;
      from = index + 1;
    }
    return text + raw.slice(from);
  }
}
