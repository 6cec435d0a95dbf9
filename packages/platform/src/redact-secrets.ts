// Credentials people paste into prompts, models echo back, or vendors quote in their error
// messages, by their published formats. Each must start a word, so "task-…" is not read as
// an "sk-" key.
const start = "(?<![A-Za-z0-9_-])";
const secretPatterns = [
  // OpenAI, Anthropic (sk-ant-), DeepSeek and the gateway's own keys (sk-gw-).
  "sk-[A-Za-z0-9_-]{12,}",
  "xai-[A-Za-z0-9]{16,}",
  // Groq, and vendors' generic "key-…" credentials (no dashes inside, so "key-value-store" stays).
  "gsk_[A-Za-z0-9]{20,}",
  "key-[A-Za-z0-9]{16,}",
  "AIza[0-9A-Za-z_-]{30,}",
  "gh[pousr]_[A-Za-z0-9]{30,}",
  "github_pat_[A-Za-z0-9_]{30,}",
  "(?:AKIA|ASIA)[0-9A-Z]{16}",
  "xox[abposr]-[A-Za-z0-9-]{10,}",
  // JWTs: base64url header (always `{"` → eyJ), payload and signature.
  "eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]*",
];
// An Authorization header's credential, whatever its format; the scheme stays readable.
const bearer = "(\\b[Bb]earer\\s+)[A-Za-z0-9._~+/=-]{8,}";
const secretPattern = new RegExp(`${bearer}|${start}(?:${secretPatterns.join("|")})`, "g");

export const redacted = "[redacted]";

/** The text with every key-like secret replaced by "[redacted]". */
export const redactSecrets = (text: string): string =>
  text.replace(secretPattern, (_match, scheme: string | undefined) => (scheme ? `${scheme}${redacted}` : redacted));
