import { createHash } from "node:crypto";
import { API_KEY_PATTERN, callUnary, fromGrpcError, invalidApiKey, startPiece } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { KeyStatus, type LedgerServiceClient, type ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import type { NextFunction, Request, Response } from "express";
import { sendError } from "../http/send-error.js";
import { FailedAuthThrottle } from "./failed-auth-throttle.js";
import { KeyCache } from "./key-cache.js";
import { SerialLanes } from "./serial-lanes.js";

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

/** How an ingress's clients present their key, and how to say so when they did not. */
export interface KeyPresentation {
  read(request: Request): string | undefined;
  hint: string;
}

const bearer = (request: Request) => request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];

function headerKey(request: Request, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export const bearerKey: KeyPresentation = {
  read: bearer,
  hint: "You didn't provide an API key. Send it as 'Authorization: Bearer YOUR_KEY'.",
};

/** Anthropic's SDKs send `x-api-key`; a bearer key works too. */
export const anthropicKey: KeyPresentation = {
  read: (request) => headerKey(request, "x-api-key") ?? bearer(request),
  hint: "You didn't provide an API key. Send it as 'x-api-key: YOUR_KEY' or 'Authorization: Bearer YOUR_KEY'.",
};

/** Google's SDKs send `x-goog-api-key`; REST examples put the key in `?key=`. A bearer key works too. */
export const googleKey: KeyPresentation = {
  read: (request) => {
    const query = request.query.key;
    const queryKey = typeof query === "string" && query !== "" ? query : undefined;
    return headerKey(request, "x-goog-api-key") ?? queryKey ?? bearer(request);
  },
  hint: "You didn't provide an API key. Send it in the 'x-goog-api-key' header or the 'key' query parameter.",
};

const statusMessage: Partial<Record<KeyStatus, string>> = {
  [KeyStatus.KEY_STATUS_REVOKED]: "This API key has been revoked.",
  [KeyStatus.KEY_STATUS_EXPIRED]: "This API key has expired.",
};

// Long enough to absorb a client that repeats a wrong key, short enough that a key created
// just after someone tried it (ledger drops its own cached refusal on creation) works within a second.
const REJECTED_KEY_TTL_MS = 1_000;

/** What keeps an address that presents invalid keys from costing much, valid keys untouched. */
interface KeyGuessingGuards {
  throttle: FailedAuthThrottle;
  // Hashes ledger recently refused, answered again without asking it.
  rejectedKeys: KeyCache<KeyStatus>;
  // Key lookups of an address over its limit run one at a time.
  lanes: SerialLanes;
}

const keyGuessingGuards = (): KeyGuessingGuards => ({
  throttle: new FailedAuthThrottle(),
  rejectedKeys: new KeyCache<KeyStatus>(REJECTED_KEY_TTL_MS),
  lanes: new SerialLanes(),
});

/**
 * Makes the authentication middleware of each ingress: it resolves the presented key (process
 * cache, then ledger, which has its own Redis cache) into the caller. Runs before any body is
 * read. A key that is not valid counts against the client's address, whichever ingress it
 * came through; once the address is over its limit its invalid keys are answered 429, while a
 * valid key is always served: many clients may share an address.
 */
export function authenticator(
  ledger: LedgerServiceClient,
  cache: KeyCache<ResolveKeyResponse>,
  { throttle, rejectedKeys, lanes } = keyGuessingGuards(),
) {
  const lookup = (keyHash: string) => callUnary(ledger.resolveKey.bind(ledger), { keyHash }, 5_000);
  const refuse = (response: Response, address: string, status?: KeyStatus) => {
    const overLimit = throttle.isOverLimit(address);
    throttle.recordFailure(address);
    const message = (status !== undefined && statusMessage[status]) || "Incorrect API key provided.";
    sendError(response, overLimit ? throttle.refusal(address) : invalidApiKey(message));
  };

  return (presentation: KeyPresentation) => async (request: Request, response: Response, next: NextFunction) => {
    const timed = startPiece("auth");
    const key = presentation.read(request);
    if (!key) return sendError(response, invalidApiKey(presentation.hint));
    // The client's address as trust proxy (GATEWAY_TRUSTED_PROXIES) makes it out.
    const address = request.ip ?? request.socket.remoteAddress ?? "";
    if (!API_KEY_PATTERN.test(key)) return refuse(response, address);
    const hash = hashKey(key);
    let resolved = cache.get(hash);
    if (!resolved) {
      const rejected = rejectedKeys.get(hash);
      if (rejected !== undefined) return refuse(response, address, rejected);
      try {
        // An address over its limit cannot hammer ledger with guesses, yet its valid keys still resolve.
        resolved = await (throttle.isOverLimit(address) ? lanes.run(address, () => lookup(hash)) : lookup(hash));
      } catch (error) {
        return sendError(response, fromGrpcError(error));
      }
      if (resolved.status === KeyStatus.KEY_STATUS_ACTIVE) cache.set(hash, resolved);
      else rejectedKeys.set(hash, resolved.status);
    }
    if (resolved.status !== KeyStatus.KEY_STATUS_ACTIVE) return refuse(response, address, resolved.status);
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
    timed?.();
    next();
  };
}
