import { echoed, GatewayError, invalidRequest } from "@gateway/platform";
import { refuseDeepJson } from "./json-depth.js";

// JSON exchanged between systems is UTF-8 (RFC 8259 §8.1). Other charsets are refused rather
// than decoded: the parser once decoded UTF-7 itself, after the depth check had read the
// undecoded bytes, so `+AFs-` (a hidden `[`) nested past every bound.

const charsetParameter = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** The charset a Content-Type names, lower-cased; undefined when it names none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = charsetParameter.exec(contentType ?? "");
  return match ? (match[1] ?? match[2] ?? "").toLowerCase() : undefined;
}

/** A JSON body labelled with any charset but UTF-8 is refused with a 415, before a byte of it is read. */
export function unsupportedCharset(contentType: string | undefined): GatewayError | undefined {
  const charset = charsetOf(contentType);
  if (charset === undefined || charset === "utf-8") return undefined;
  return new GatewayError(
    415,
    "invalid_request_error",
    "charset_unsupported",
    `Unsupported charset "${echoed(charset)}": send the JSON body as UTF-8 (Content-Type: application/json; charset=utf-8).`,
  );
}

// Bytes that are not UTF-8 become U+FFFD, and a byte order mark is dropped, as JSON allows.
const utf8 = new TextDecoder("utf-8");

/**
 * A JSON body's bytes as the value they encode. The bytes are decoded first, and the depth
 * check and the parser then read that one text, so no encoding can show them different things.
 * An empty body is an empty object, as it always was here.
 */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  const text = utf8.decode(bytes);
  if (text === "") return {};
  refuseDeepJson(text);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest("We could not parse the JSON body of your request. Send valid JSON.", null, "invalid_json");
  }
}
