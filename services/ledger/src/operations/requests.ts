import { storableText } from "@gateway/platform";
import { PaymentProvider, TopUpOrderState } from "@gateway/proto/ledger/v1/console";
import { z } from "zod";
import { cursorParam } from "../account-api/cursor.js";
import { actorInput } from "../console/admin-requests.js";
import { pageLimit } from "../console/requests.js";
import { utcDay } from "../http/input-fields.js";
import { ORDER_CHECK_RESULTS } from "../topups/audit-order-check.js";
import { PREPAID_CODE_METHOD, type TopUpMethodName, type TopUpOrderStateName } from "../topups/payment-provider.js";

// The operations pages' requests, checked at ledger's boundary: a bad field is an INVALID_ARGUMENT naming it.

const DAY_MS = 86_400_000;

export const codeBatchInput = z.object({
  // Whole fen, 1 yuan to 100,000 yuan a code.
  amountMicros: z
    .number()
    .int()
    .min(1_000_000, "must be at least 1 yuan")
    .max(100_000_000_000, "must be at most 100,000 yuan")
    .refine((micros) => micros % 10_000 === 0, "must be whole fen")
    .transform((micros) => BigInt(micros)),
  count: z.number().int().min(1).max(1000),
  expiresAtMs: z
    .number()
    .int()
    .min(0)
    .transform((at) => (at ? new Date(at) : undefined))
    .refine((at) => !at || at.getTime() > Date.now(), "must be in the future"),
  note: storableText.trim().max(500),
  actor: actorInput,
});

export const revokeInput = z.object({ target: z.string().max(100), actor: actorInput });
// A check that recorded an answer or closed the order was audited with that change.
export const orderCheckInput = z.object({
  actor: actorInput,
  result: z.enum(ORDER_CHECK_RESULTS).exclude(["recorded", "closed"]),
});

export const batchPageInput = z.object({ limit: pageLimit, cursor: cursorParam(z.uuid()).optional() });

const STATE_NAMES: Partial<Record<TopUpOrderState, TopUpOrderStateName>> = {
  [TopUpOrderState.TOP_UP_ORDER_STATE_CREATED]: "created",
  [TopUpOrderState.TOP_UP_ORDER_STATE_PAID]: "paid",
  [TopUpOrderState.TOP_UP_ORDER_STATE_CLOSED]: "closed",
  [TopUpOrderState.TOP_UP_ORDER_STATE_FAILED]: "failed",
};
const METHOD_NAMES: Partial<Record<PaymentProvider, TopUpMethodName>> = {
  [PaymentProvider.PAYMENT_PROVIDER_WECHAT_PAY]: "wechat_pay",
  [PaymentProvider.PAYMENT_PROVIDER_ALIPAY]: "alipay",
  [PaymentProvider.PAYMENT_PROVIDER_PREPAID_CODE]: PREPAID_CODE_METHOD,
};
const instant = z
  .number()
  .int()
  .min(0)
  .transform((at) => (at ? new Date(at) : undefined));

export const orderFilterInput = z.object({
  limit: pageLimit,
  after: cursorParam(z.uuid()).optional(),
  state: z.number().transform((state) => STATE_NAMES[state as TopUpOrderState]),
  provider: z.number().transform((provider) => METHOD_NAMES[provider as PaymentProvider]),
  from: instant,
  to: instant,
  accountId: z.uuid().optional(),
});

export const overviewInput = z
  .object({
    from: utcDay.optional(),
    to: utcDay.optional(),
    top: z
      .number()
      .int()
      .transform((top) => top || 10)
      .pipe(z.number().min(1).max(100)),
  })
  .transform(({ from, to, top }) => {
    const last = to ?? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
    return { from: from ?? new Date(last.getTime() - 29 * DAY_MS), to: last, top };
  })
  .refine(({ from, to }) => from <= to, "from must not be after to")
  .refine(({ from, to }) => to.getTime() - from.getTime() <= 366 * DAY_MS, "must span at most a year");
