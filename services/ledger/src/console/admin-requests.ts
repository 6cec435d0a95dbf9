import { storableText } from "@gateway/platform";
import { z } from "zod";
import { cursorParam } from "../account-api/cursor.js";
import { LOG_CAPTURE_LEVELS } from "../accounts/log-capture.js";
import { ROLES } from "../audit/record-audit.js";
import { pageLimit } from "./requests.js";

// The AdminService's requests, checked at ledger's boundary like the console's other calls.

const emptyAsAbsent = <T extends z.ZodType>(schema: T) =>
  z.union([z.literal("").transform(() => undefined), schema.optional()]);

/** The operator acting, as the console found them; required on every change. */
export const actorInput = z
  .object({
    accountId: emptyAsAbsent(z.uuid()),
    identity: storableText.trim().min(1).max(300),
    role: z.enum(ROLES),
  })
  .optional()
  .refine((actor) => actor !== undefined, "the acting operator is required")
  .transform((actor) => actor!);

/** An account id, or a sign-in `provider:subject` (the console's CONSOLE_ADMIN_IDENTITIES form). */
export const granteeInput = z.union([
  z.uuid().transform((id) => id.toLowerCase()),
  z.string().regex(/^[a-z][a-z0-9:_.-]*:[^\s]{1,255}$/, "must be an account id or a sign-in like github:123"),
]);

export const grantInput = z.object({ actor: actorInput, grantee: granteeInput, role: z.enum(ROLES) });
export const revokeInput = z.object({ actor: actorInput, grantee: granteeInput });

export const searchInput = z.object({
  query: storableText.trim().max(200),
  limit: pageLimit,
  cursor: emptyAsAbsent(cursorParam(z.uuid())),
});

export const disabledInput = z.object({ actor: actorInput, disabled: z.boolean(), targetIsAdmin: z.boolean() });
export const groupInput = z.object({
  actor: actorInput,
  group: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional(),
});
export const logCaptureInput = z.object({ actor: actorInput, logCapture: z.enum(LOG_CAPTURE_LEVELS).optional() });

const time = z
  .number()
  .int()
  .min(0)
  .transform((ms) => (ms ? new Date(ms) : undefined));

export const auditQuery = z.object({
  actor: emptyAsAbsent(storableText.trim().min(1).max(300)),
  accountId: emptyAsAbsent(z.uuid()),
  action: emptyAsAbsent(z.string().regex(/^[a-z_.]{1,64}$/, "must be an action like account.disable")),
  fromMs: time,
  toMs: time,
  limit: pageLimit,
  cursor: emptyAsAbsent(cursorParam(z.uuid())),
});
