import { createHmac, timingSafeEqual } from "node:crypto";

/** The services that call each other, plus `tools` for operator and test tooling. */
export const serviceNames = ["edge", "router", "ledger", "video", "console", "tools"] as const;
export type ServiceName = (typeof serviceNames)[number];

// A stolen token is worth a minute at most; callers re-sign well before that.
export const SERVICE_TOKEN_LIFETIME_MS = 60_000;
// Hosts' clocks drift a little; a token dated slightly ahead is still accepted.
const ALLOWED_CLOCK_SKEW_MS = 30_000;

const signature = (secret: string, service: string, issuedAt: number) =>
  createHmac("sha256", secret).update(`gateway-service-token:v1:${service}:${issuedAt}`).digest("base64url");

/** `<service>.<issued-at ms>.<HMAC-SHA256 of both under the shared secret>`. */
export function signServiceToken(secret: string, service: ServiceName, now = Date.now()): string {
  return `${service}.${now}.${signature(secret, service, now)}`;
}

/** The calling service named by a genuine, current token; undefined for anything else. */
export function verifyServiceToken(secret: string, token: string, now = Date.now()): ServiceName | undefined {
  const [service, issuedText, mac, ...rest] = token.split(".");
  if (rest.length > 0 || !service || !issuedText || !mac) return undefined;
  if (!(serviceNames as readonly string[]).includes(service) || !/^\d{1,15}$/.test(issuedText)) return undefined;
  const issuedAt = Number(issuedText);
  if (issuedAt > now + ALLOWED_CLOCK_SKEW_MS || now - issuedAt > SERVICE_TOKEN_LIFETIME_MS) return undefined;
  const expected = Buffer.from(signature(secret, service, issuedAt));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return service as ServiceName;
}
