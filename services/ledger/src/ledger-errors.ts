import { echoed, GatewayError, invalidRequest, notFound } from "@gateway/platform";

// The ledger's own OpenAI-shaped errors, built on the shared GatewayError helpers.

export const accountNotFound = (accountId: string) => notFound(`No account with id ${echoed(accountId)}.`);

export const keyNotFound = (keyId: string) => notFound(`No API key with id ${echoed(keyId)}.`);

export const requestLogNotFound = (requestId: string) => notFound(`No request log with id ${echoed(requestId)}.`);

export const unknownModelGroup = (group: string) =>
  invalidRequest(`Unknown model group \`${echoed(group)}\`.`, "group", "model_group_not_found");

export const idempotencyConflict = (idempotencyKey: string) =>
  new GatewayError(
    409,
    "invalid_request_error",
    "idempotency_key_reused",
    `The idempotency key \`${echoed(idempotencyKey)}\` was already used for a different credit.`,
    "idempotency_key",
  );

export const logReadingDenied = () =>
  new GatewayError(
    403,
    "invalid_request_error",
    "permission_denied",
    "This API key may not read request logs. Use a key made with read_logs (pnpm gw key create ... --read-logs).",
  );

export const revokedKeyConflict = () =>
  new GatewayError(
    409,
    "invalid_request_error",
    "conflict",
    "That API key exists and has been revoked; choose another.",
  );

export const topUpOrderNotFound = (outTradeNo: string) =>
  notFound(`No top-up order with number ${echoed(outTradeNo)}.`);

export const topUpOrderFinished = (outTradeNo: string, state: string) =>
  new GatewayError(
    409,
    "invalid_request_error",
    "order_finished",
    `The top-up order ${echoed(outTradeNo)} is already ${state}.`,
  );

export const identityLinkedElsewhere = () =>
  new GatewayError(
    409,
    "invalid_request_error",
    "identity_linked_elsewhere",
    "This sign-in is already linked to another account.",
  );

/** An account at one of its caps (LEDGER_MAX_KEYS_PER_ACCOUNT, LEDGER_MAX_OPEN_TOPUPS_PER_ACCOUNT). */
export const accountCapReached = (what: string, cap: number, remedy: string) =>
  new GatewayError(
    429,
    "invalid_request_error",
    "account_limit_reached",
    `This account already has ${cap} ${what}; ${remedy}.`,
  );

export const adjustmentBelowZero = () =>
  invalidRequest("The adjustment would take the balance below zero.", "amount_micros", "balance_below_zero");
