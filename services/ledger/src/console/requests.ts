import { storableText } from "@gateway/platform";
import { type ListFilter as ListFilterMessage, TopUpOrderState } from "@gateway/proto/ledger/v1/console";
import { z } from "zod";
import { cursorParam } from "../account-api/cursor.js";
import { parseInput } from "../admin/parse-input.js";
import { ROLES } from "../audit/record-audit.js";
import { accountNotFound } from "../ledger-errors.js";
import { OUT_TRADE_NO_PATTERN } from "../topups/out-trade-no.js";
import type { PaymentProviderName } from "../topups/payment-provider.js";
import { PROVIDER_MESSAGES } from "./to-proto.js";

// The console's requests, checked at ledger's boundary like any external input: a bad field
// is an INVALID_ARGUMENT (400) naming it, an id that cannot name anything a NOT_FOUND.

const uuid = z.uuid();

/** An account id that is no uuid names no account. */
export function accountIdOf(accountId: string): string {
  if (!uuid.safeParse(accountId).success) throw accountNotFound(accountId);
  return accountId;
}

const optionalText = (max: number) =>
  storableText
    .max(max)
    .optional()
    .transform((text) => (text?.trim() ? text.trim() : undefined));

/** A sign-in: the provider name the console configures and the provider's stable subject. */
export const identityInput = z.object({
  provider: z.string().regex(/^[a-z0-9][a-z0-9_.:-]{0,63}$/, "must be a lowercase provider name like github"),
  subject: storableText.min(1).max(255),
  email: optionalText(320),
  displayName: optionalText(200),
});

const PROVIDER_NAMES = new Map(
  Object.entries(PROVIDER_MESSAGES).map(([name, message]) => [message, name as PaymentProviderName]),
);

export const providerName = z.number().transform((provider, context) => {
  const name = PROVIDER_NAMES.get(provider);
  if (name) return name;
  context.addIssue({ code: "custom", message: "must be WeChat Pay or Alipay" });
  return z.NEVER;
});

const MINUTE_MS = 60_000;
// Neither provider keeps an unpaid QR code longer than this is useful; 30 minutes when unset.
const MAX_ORDER_LIFETIME_MS = 24 * 60 * MINUTE_MS;

export const createTopUpOrderInput = z.object({
  provider: providerName,
  // At most 1e9 yuan, money.ts's ceiling.
  amountFen: z
    .number()
    .int()
    .min(100, "must be at least 100 fen (1 yuan)")
    .max(100_000_000_000)
    .transform((fen) => BigInt(fen)),
  merchantId: storableText.min(1).max(64),
  expiresInMs: z
    .number()
    .int()
    .transform((lifetime) => lifetime || 30 * MINUTE_MS)
    .pipe(z.number().min(MINUTE_MS).max(MAX_ORDER_LIFETIME_MS)),
});

export const outTradeNo = z.string().regex(OUT_TRADE_NO_PATTERN, "must be one of our order numbers");

export const paymentNotificationInput = z.object({
  provider: providerName,
  headers: z
    .record(storableText.max(256), storableText.max(16 * 1024))
    .refine((headers) => Object.keys(headers).length <= 100, "must be at most 100 headers"),
  // Notifications are a few kB; more is not a notification.
  body: storableText.max(1024 * 1024),
  signatureVerified: z.boolean(),
  facts: z
    .object({
      outTradeNo: storableText.max(64),
      amountFen: z
        .number()
        .int()
        .min(0)
        .transform((fen) => BigInt(fen)),
      currency: storableText.max(16),
      merchantId: storableText.max(64),
      providerTradeId: storableText.min(1).max(128),
      tradeStatus: storableText.max(64),
      paidAtMs: z
        .number()
        .int()
        .min(0)
        .transform((paidAt) => (paidAt ? new Date(paidAt) : undefined)),
    })
    .optional(),
});

export const closeState = z.number().transform((state, context) => {
  if (state === TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED) return "closed" as const;
  if (state === TopUpOrderState.TOP_UP_ORDER_STATE_FAILED) return "failed" as const;
  context.addIssue({ code: "custom", message: "must be CLOSED or FAILED" });
  return z.NEVER;
});

export const durationMs = z
  .number()
  .int()
  .min(0)
  .max(365 * 24 * 60 * MINUTE_MS);
export const pageLimit = z
  .number()
  .int()
  .transform((limit) => limit || 50)
  .pipe(z.number().min(1).max(500));

const pageInput = z.object({ limit: pageLimit, cursor: cursorParam(z.uuid()).optional() });
/** A page request's size and position (the last id of the page before; empty for the first). */
export const pageOf = (request: { limit: number; cursor: string }) =>
  parseInput(pageInput, { limit: request.limit, cursor: request.cursor || undefined });

/** The proto's way to say "no next page" is an empty cursor. */
export const nextCursor = (page: { next_cursor: string | null }) => page.next_cursor ?? "";

/** A ListFilter as the account API's query, so both are checked by the same schemas (account-api/query-params.ts). */
export function listQuery(filter: ListFilterMessage | undefined) {
  const isoTime = (ms: number | undefined) => (ms ? new Date(ms).toISOString() : undefined);
  return {
    from: isoTime(filter?.fromMs),
    to: isoTime(filter?.toMs),
    model: filter?.model,
    key_id: filter?.keyId,
    limit: filter?.limit || undefined,
    cursor: filter?.cursor || undefined,
  };
}

export const createKeyInput = z.object({
  name: storableText
    .trim()
    .max(200)
    .transform((name) => name || "key"),
  // Unset: the default group, as an account's first key.
  group: storableText
    .trim()
    .max(200)
    .transform((group) => group || "default"),
  expiresAtMs: z.number().int().min(0),
  spendCapMicros: z.number().int().min(0).optional(),
  readLogs: z.boolean(),
});

export const adjustCreditInput = z.object({
  amountMicros: z
    .number()
    .int()
    .refine((amount) => amount !== 0, "must not be zero")
    .refine((amount) => Math.abs(amount) <= 1e15, "must be at most 1e15 micros either way")
    .transform((amount) => BigInt(amount)),
  reason: storableText.trim().min(1).max(500),
  actor: storableText.trim().min(1).max(255),
  actorRole: z.enum(ROLES),
  actorAccountId: z.union([z.literal(""), z.uuid()]).transform((id) => id || undefined),
  idempotencyKey: storableText.trim().min(1).max(200),
  targetIsAdmin: z.boolean(),
});
