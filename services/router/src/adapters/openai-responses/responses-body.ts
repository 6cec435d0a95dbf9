// The client's Responses body goes to OpenAI as its bytes, not re-serialised: fields the gateway
// does not know (Codex adds some every month) and their formatting reach the vendor untouched.

/** The index just past the JSON string that opens at `start` (its closing quote). */
function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (char === "\\") index += 2;
    else if (char === '"') return index + 1;
    else index += 1;
  }
  return text.length;
}

const skipSpace = (text: string, from: number) => {
  let index = from;
  while (index < text.length && " \t\r\n".includes(text[index]!)) index += 1;
  return index;
};

/** Where each string value of a top-level `model` key sits in a JSON object's text, first to last. */
function modelValueSpans(text: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") depth -= 1;
    else if (char === '"') {
      const end = stringEnd(text, index);
      const colon = skipSpace(text, end);
      if (depth === 1 && text[colon] === ":" && JSON.parse(text.slice(index, end)) === "model") {
        const value = skipSpace(text, colon + 1);
        if (text[value] === '"') spans.push({ start: value, end: stringEnd(text, value) });
      }
      index = end - 1;
    }
  }
  return spans;
}

/**
 * The body to send: the client's bytes themselves when the vendor knows the model by the name
 * the client used, else those bytes with only the top-level `model` value replaced.
 */
export function bodyForVendor(body: Uint8Array, clientModel: string, vendorModel: string): Uint8Array {
  if (clientModel === vendorModel) return body;
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8");
  let replaced = "";
  let from = 0;
  for (const { start, end } of modelValueSpans(text)) {
    replaced += text.slice(from, start) + JSON.stringify(vendorModel);
    from = end;
  }
  return Buffer.from(replaced + text.slice(from), "utf8");
}
