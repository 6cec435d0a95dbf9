import { createHash } from "node:crypto";
import type { Caller } from "@gateway/proto/common/v1/common";
import { KeyStatus, type LedgerServiceClient, type ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import { callUnary, fromGrpcError, invalidApiKey } from "@gateway/shared";
import type { NextFunction, Request, Response } from "express";
import { sendError } from "../http/send-error.js";
import { FailedAuthThrottle } from "./failed-auth-throttle.js";
import type { KeyCache } from "./key-cache.js";

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

function presentedKey(request: Request): string | undefined {
  const header = request.headers.authorization;
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

const statusMessage: Partial<Record<KeyStatus, string>> = {
  [KeyStatus.KEY_STATUS_REVOKED]: "This API key has been revoked.",
  [KeyStatus.KEY_STATUS_EXPIRED]: "This API key has expired.",
};

/** Resolves the bearer key (process cache, then ledger, which has its own Redis cache) into the caller. */
export function authenticate(
  ledger: LedgerServiceClient,
  cache: KeyCache<ResolveKeyResponse>,
  throttle = new FailedAuthThrottle(),
) {
  return async (request: Request, response: Response, next: NextFunction) => {
    const key = presentedKey(request);
    if (!key) {
      return sendError(
        response,
        invalidApiKey("You didn't provide an API key. Send it as 'Authorization: Bearer YOUR_KEY'."),
      );
    }
    const hash = hashKey(key);
    let resolved = cache.get(hash);
    const address = request.ip ?? request.socket.remoteAddress ?? "";
    if (!resolved) {
      try {
        // A key the cache does not know costs a ledger call: an address guessing keys is stopped first.
        throttle.check(address);
        resolved = await callUnary(ledger.resolveKey.bind(ledger), { keyHash: hash }, 5_000);
      } catch (error) {
        return sendError(response, fromGrpcError(error));
      }
      if (resolved.status === KeyStatus.KEY_STATUS_ACTIVE) cache.set(hash, resolved);
    }
    if (resolved.status !== KeyStatus.KEY_STATUS_ACTIVE) {
      throttle.recordFailure(address);
      return sendError(response, invalidApiKey(statusMessage[resolved.status] ?? "Incorrect API key provided."));
    }
    const caller: Caller = {
      requestId: response.locals.requestId as string,
      accountId: resolved.accountId,
      keyId: resolved.keyId,
      modelGroup: resolved.modelGroup,
      multiplierBasisPoints: resolved.multiplierBasisPoints,
      logCapture: resolved.logCapture,
      keySpendCapMicros: resolved.spendCapMicros,
    };
    response.locals.caller = caller;
    response.locals.keyHash = hash;
    next();
  };
}
