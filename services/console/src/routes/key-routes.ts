import type { Router } from "express";
import { z } from "zod";
import { badRequest, notFound, parseInput } from "../http/console-error.js";
import { keyJson } from "../http/to-json.js";
import type { Ledger } from "../ledger-client.js";
import { sessionOf } from "../sessions/require-session.js";

const createKeyBody = z.object({
  name: z.string().trim().min(1).max(200),
  group: z.string().min(1).max(64),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  spendCapMicros: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
});

/** The account's keys (in the groups it may use: `groups`) and the groups themselves. */
export function keyRoutes(router: Router, ledger: Ledger, groups: string[]): void {
  router.get("/groups", (_request, response) => {
    response.json({
      groups: groups.map((name, index) => ({
        name,
        description: index === 0 ? "The default model group" : `Model group ${name}`,
      })),
    });
  });

  router.get("/keys", async (_request, response) => {
    const { keys } = await ledger.listKeys({ accountId: sessionOf(response).accountId });
    response.json({ keys: keys.map(keyJson) });
  });

  router.post("/keys", async (request, response) => {
    const body = parseInput(createKeyBody, request.body);
    if (!groups.includes(body.group)) throw badRequest(`group: this account may not use the group ${body.group}`);
    const expiresAtMs = body.expiresAt ? Date.parse(body.expiresAt) : 0;
    if (expiresAtMs && expiresAtMs <= Date.now()) throw badRequest("expiresAt: must be in the future");
    const created = await ledger.createKey({
      accountId: sessionOf(response).accountId,
      name: body.name,
      group: body.group,
      expiresAtMs,
      spendCapMicros: body.spendCapMicros,
      readLogs: false,
    });
    if (!created.key) throw new Error("ledger answered no key");
    response.status(201).json({ key: keyJson(created.key), apiKey: created.apiKey });
  });

  router.delete("/keys/:id", async (request, response) => {
    if (!z.uuid().safeParse(request.params.id).success) throw notFound("No such key.");
    const key = await ledger.revokeKey({ accountId: sessionOf(response).accountId, keyId: request.params.id });
    response.json({ key: keyJson(key) });
  });
}
