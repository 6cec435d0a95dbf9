import { API_KEY_PATTERN, API_KEY_PATTERN_TEXT } from "@gateway/platform";
import type { Router } from "express";
import { z } from "zod";
import { createAccount } from "../../accounts/create-account.js";
import { findAccount } from "../../accounts/find-account.js";
import { LOG_CAPTURE_LEVELS } from "../../accounts/log-capture.js";
import { setAccountDisabled } from "../../accounts/set-account-disabled.js";
import { setLogCapture } from "../../accounts/set-log-capture.js";
import { label } from "../../http/input-fields.js";
import { hashApiKey } from "../../keys/api-key.js";
import { revokedKeyConflict } from "../../ledger-errors.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput, yuanToMicros } from "../parse-input.js";
import { accountIdOf } from "../path-ids.js";
import { accountJson } from "../serialize.js";
import { tokenHolder } from "../token-holder.js";

const createAccountBody = z.object({
  name: label,
  group: label.default("default"),
  credit_yuan: z.union([z.string(), z.number()]).optional(),
  // Operators may fix a key's value (the stack's demo key); it must be as hard to guess as ours.
  api_key: z.string().regex(API_KEY_PATTERN, `must be ${API_KEY_PATTERN_TEXT}`).optional(),
  // Whether the first key may read the account's request logs (see keys.ts).
  read_logs: z.boolean().default(false),
});

// "default" clears the account's own level so the deployment's applies.
const logCaptureBody = z.object({ log_capture: z.enum([...LOG_CAPTURE_LEVELS, "default"]) });

/** Seeding with a fixed key is idempotent: the account that already owns it is returned. */
async function accountOwningKey(database: AdminDependencies["database"], apiKey: string) {
  const key = await database.apiKey.findUnique({ where: { keyHash: hashApiKey(apiKey) }, include: { account: true } });
  if (key?.revokedAt) throw revokedKeyConflict();
  return key ?? undefined;
}

export function accountRoutes(router: Router, dependencies: AdminDependencies): void {
  const { database, forgetCachedKeys, announceRevocation } = dependencies;
  /** Creates an account with its first key; the clear key is in this answer and nowhere else. */
  router.post("/accounts", async (request, response) => {
    const body = parseInput(createAccountBody, request.body);
    const initialCreditMicros = body.credit_yuan === undefined ? 0n : yuanToMicros(body.credit_yuan, "credit_yuan", 0n);
    const existing = body.api_key ? await accountOwningKey(database, body.api_key) : undefined;
    const { account, key, apiKey } = existing
      ? { account: existing.account, key: existing, apiKey: body.api_key! }
      : await createAccount(database, forgetCachedKeys, {
          name: body.name,
          group: body.group,
          initialCreditMicros,
          apiKey: body.api_key,
          canReadLogs: body.read_logs,
        });
    response.status(existing ? 200 : 201).json({
      ...accountJson(account),
      key_id: key.id,
      api_key: apiKey,
      key_prefix: key.keyPrefix,
      group: key.modelGroup,
      read_logs: key.canReadLogs,
    });
  });

  router.get("/accounts/:accountId", async (request, response) => {
    response.json(accountJson(await findAccount(database, accountIdOf(request))));
  });

  // Disabling refuses the account's keys at once; enabling is how an operator undoes it.
  for (const [path, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    router.post(`/accounts/:accountId/${path}`, async (request, response) => {
      const accountId = accountIdOf(request);
      const account = await setAccountDisabled(database, announceRevocation, tokenHolder(request), accountId, disabled);
      response.json({ ...accountJson(account), disabled_at: account.disabledAt?.toISOString() ?? null });
    });
  }

  router.put("/accounts/:accountId/log-capture", async (request, response) => {
    const accountId = accountIdOf(request);
    const { log_capture } = parseInput(logCaptureBody, request.body);
    const level = log_capture === "default" ? null : log_capture;
    response.json(accountJson(await setLogCapture(database, forgetCachedKeys, accountId, level, tokenHolder(request))));
  });
}
