import { createHash } from "node:crypto";

// Gemini 3's thought signatures: opaque bytes (base64 in JSON) on the first functionCall part of
// each answer and on the last part of a text answer, which a client must send back on the same
// part. https://ai.google.dev/gemini-api/docs/thought-signatures

/** The models that sign their answers and refuse a tool loop that dropped a signature. */
export const signsThoughts = (model: string) => /^gemini-3/.test(model);

// Bytes whose base64 is "++++////", so a gateway that carries the signature through a charset
// without `+` and `/` (a tool call id) must encode it and restore it exactly.
const marker = Buffer.from([0xfb, 0xef, 0xbe, 0xff, 0xff, 0xff]);

/**
 * The signature the simulated model puts on a part: on a call, bound to the function's name, so
 * one moved to another call is refused like a forged one. 166 bytes: base64 with `==` padding,
 * about as long as Google's.
 */
function signatureBytes(subject: string): Buffer {
  const digest = createHash("sha256").update(`simulated-thought\n${subject}`).digest();
  return Buffer.concat([marker, digest, digest, digest, digest, digest]);
}

export const thoughtSignature = (subject: string) => signatureBytes(subject).toString("base64");

// Google's documented stand-ins for a call the model did not make (history from another model).
const skipValidation = new Set(["skip_thought_signature_validator", "context_engineering_is_the_way_to_go"]);

// proto3 JSON takes bytes in either base64 alphabet, padded or not.
const base64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Why Gemini refuses a signature sent back on a call of `name` (at `path`), or undefined when it
 * takes it: it must decode as base64 and be one the model gave to that call.
 */
export function signatureProblem(signature: unknown, name: string, path: string): string | undefined {
  if (typeof signature === "string" && skipValidation.has(signature)) return undefined;
  if (typeof signature !== "string" || !base64.test(signature) || signature.replace(/=+$/, "").length % 4 === 1) {
    return `Invalid value at '${path}.thought_signature' (TYPE_BYTES), Base64 decoding failed for "${String(signature)}"`;
  }
  const bytes = Buffer.from(signature.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return bytes.equals(signatureBytes(name)) ? undefined : "Corrupted thought signature.";
}

/** Google's refusal of a call of the current turn sent back without its signature; `position` counts contents from 1. */
export const missingSignature = (name: string, position: number) =>
  `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
