import type { Router } from "express";
import { z } from "zod";
import { addCredit } from "../../accounts/add-credit.js";
import { label } from "../../http/input-fields.js";
import type { AdminDependencies } from "../dependencies.js";
import { parseInput, yuanToMicros } from "../parse-input.js";
import { accountIdOf } from "../path-ids.js";
import { creditJson } from "../serialize.js";
import { tokenHolder } from "../token-holder.js";

const creditBody = z.object({
  yuan: z.union([z.string(), z.number()]),
  idempotency_key: label,
});

export function creditRoutes(router: Router, { database, publishBalance }: AdminDependencies): void {
  /** Tops up an account, audited as the CLI's; 201 the first time, 200 with `replayed: true` for a retry. */
  router.post("/accounts/:accountId/credits", async (request, response) => {
    const accountId = accountIdOf(request);
    const body = parseInput(creditBody, request.body);
    const { credit, balance, replayed } = await addCredit(
      database,
      { accountId, amountMicros: yuanToMicros(body.yuan, "yuan", 1n), idempotencyKey: body.idempotency_key },
      tokenHolder(request),
    );
    await publishBalance(accountId, balance);
    response
      .status(replayed ? 200 : 201)
      .json({ ...creditJson(credit), balance_micros: balance.micros.toString(), replayed });
  });
}
