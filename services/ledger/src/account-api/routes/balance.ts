import type { Router } from "express";
import { findAccount } from "../../accounts/find-account.js";
import type { Database } from "../../database.js";
import { authenticatedAccountId } from "../authenticated-account.js";
import { balanceJson } from "../serialize.js";

export function balanceRoutes(router: Router, database: Database): void {
  /** The balance as last committed (open reservations are not subtracted). */
  router.get("/balance", async (_request, response) => {
    response.json(balanceJson(await findAccount(database, authenticatedAccountId(response))));
  });
}
