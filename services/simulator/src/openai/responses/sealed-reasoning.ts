import { createHmac, timingSafeEqual } from "node:crypto";

// OpenAI returns a reasoning item's `encrypted_content` (with include: ["reasoning.encrypted_content"])
// for the client to send back on a later turn with store:false, and refuses one it cannot
// verify. The simulator seals its own the same way, so a test sees whether the blob came back
// byte for byte: any change to it fails the next turn as OpenAI's would.

const key = "simulator reasoning seal";
// Fernet tokens, which OpenAI's blobs are, start with this version byte and timestamp prefix.
const prefix = "gAAAAAB";

const tagOf = (payload: string) => createHmac("sha256", key).update(payload).digest("base64url");

/** The encrypted content of a reasoning item: its id and summary, sealed. */
export function sealReasoning(itemId: string, text: string): string {
  const payload = Buffer.from(JSON.stringify({ id: itemId, text })).toString("base64url");
  return `${prefix}${payload}.${tagOf(payload)}`;
}

/** Whether the simulator sealed this content itself, unchanged since. */
export function opensReasoning(content: string): boolean {
  if (!content.startsWith(prefix)) return false;
  const [payload = "", tag = ""] = content.slice(prefix.length).split(".");
  const expected = Buffer.from(tagOf(payload));
  const given = Buffer.from(tag);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
