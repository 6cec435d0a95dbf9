import { invalidApiKey } from "@gateway/platform";
import { KeyStatus, type ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import type { RequestHandler } from "express";
import { bearerToken } from "../http/bearer-token.js";
import { hashApiKey } from "../keys/api-key.js";
import { setAuthenticatedAccount } from "./authenticated-account.js";

const statusMessage: Partial<Record<KeyStatus, string>> = {
  [KeyStatus.KEY_STATUS_REVOKED]: "This API key has been revoked.",
  [KeyStatus.KEY_STATUS_EXPIRED]: "This API key has expired.",
};

/**
 * Signs a request in as the account owning the active API key it bears, resolved exactly
 * as ResolveKey resolves edge's keys (Redis cache, then Postgres). A console session will
 * replace this middleware; the routes only read the authenticated account.
 */
export function authenticateWithApiKey(resolveKey: (keyHash: string) => Promise<ResolveKeyResponse>): RequestHandler {
  return async (request, response, next) => {
    const apiKey = bearerToken(request);
    if (!apiKey) throw invalidApiKey("You didn't provide an API key. Send it as 'Authorization: Bearer YOUR_KEY'.");
    const resolved = await resolveKey(hashApiKey(apiKey));
    if (resolved.status !== KeyStatus.KEY_STATUS_ACTIVE) {
      throw invalidApiKey(statusMessage[resolved.status] ?? "Incorrect API key provided.");
    }
    setAuthenticatedAccount(response, { accountId: resolved.accountId, canReadLogs: resolved.canReadLogs });
    next();
  };
}
