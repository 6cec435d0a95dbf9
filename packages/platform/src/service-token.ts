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

const isCurrent = (issuedAt: number, now: number) =>
  issuedAt <= now + ALLOWED_CLOCK_SKEW_MS && now - issuedAt <= SERVICE_TOKEN_LIFETIME_MS;

/** The calling service named by a genuine, current token; undefined for anything else. */
export function verifyServiceToken(secret: string, token: string, now = Date.now()): ServiceName | undefined {
  const [service, issuedText, mac, ...rest] = token.split(".");
  if (rest.length > 0 || !service || !issuedText || !mac) return undefined;
  if (!(serviceNames as readonly string[]).includes(service) || !/^\d{1,15}$/.test(issuedText)) return undefined;
  const issuedAt = Number(issuedText);
  if (!isCurrent(issuedAt, now)) return undefined;
  const expected = Buffer.from(signature(secret, service, issuedAt));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return service as ServiceName;
}

// Callers re-sign every 20 s, so a server sees a handful of live tokens at a time.
const REMEMBERED_TOKENS = 256;

/**
 * `verifyServiceToken` that remembers the tokens it has found genuine: a caller sends the same
 * token on every call for 20 s, and its HMAC was ~1 % of router's CPU. A remembered token is
 * still refused once it is no longer current.
 */
export function serviceTokenVerifier(secret: string): (token: string, now?: number) => ServiceName | undefined {
  const genuine = new Map<string, { service: ServiceName; issuedAt: number }>();
  return (token, now = Date.now()) => {
    const known = genuine.get(token);
    if (known) return isCurrent(known.issuedAt, now) ? known.service : undefined;
    const service = verifyServiceToken(secret, token, now);
    if (service) {
      if (genuine.size >= REMEMBERED_TOKENS) genuine.clear();
      genuine.set(token, { service, issuedAt: Number(token.split(".")[1]) });
    }
    return service;
  };
}
