import type { Router } from "express";
import { z } from "zod";
import { dateTime, label } from "../../http/input-fields.js";
import { createKey } from "../../keys/create-key.js";
import { listKeys } from "../../keys/list-keys.js";
import { revokeKey } from "../../keys/revoke-key.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput, yuanToMicros } from "../parse-input.js";
import { accountIdOf, keyIdOf } from "../path-ids.js";
import { keyJson } from "../serialize.js";

const createKeyBody = z.object({
  group: label,
  name: label.default("key"),
  expires_at: dateTime.optional(),
  spend_cap_yuan: z.union([z.string(), z.number()]).optional(),
  // Request logs hold people's prompts: a key reads them only when made to.
  read_logs: z.boolean().default(false),
});

export function keyRoutes(router: Router, { database, announceRevocation, forgetCachedKeys }: AdminDependencies): void {
  router.post("/accounts/:accountId/keys", async (request, response) => {
    const accountId = accountIdOf(request);
    const body = parseInput(createKeyBody, request.body);
    const { key, apiKey } = await createKey(database, forgetCachedKeys, {
      accountId,
      group: body.group,
      name: body.name,
      expiresAt: body.expires_at,
      spendCapMicros:
        body.spend_cap_yuan === undefined ? undefined : yuanToMicros(body.spend_cap_yuan, "spend_cap_yuan", 0n),
      canReadLogs: body.read_logs,
    });
    response.status(201).json({ ...keyJson(key), api_key: apiKey });
  });

  router.get("/accounts/:accountId/keys", async (request, response) => {
    const keys = await listKeys(database, accountIdOf(request));
    response.json({ object: "list", data: keys.map(keyJson) });
  });

  router.post("/keys/:keyId/revoke", async (request, response) => {
    response.json(keyJson(await revokeKey(database, announceRevocation, keyIdOf(request))));
  });
}
