import { GatewayError, invalidRequest, notFound } from "@gateway/shared";

// The ledger's own OpenAI-shaped errors, built on the shared GatewayError helpers.

export const accountNotFound = (accountId: string) => notFound(`No account with id ${accountId}.`);

export const keyNotFound = (keyId: string) => notFound(`No API key with id ${keyId}.`);

export const requestLogNotFound = (requestId: string) => notFound(`No request log with id ${requestId}.`);

export const unknownModelGroup = (group: string) =>
  invalidRequest(`Unknown model group \`${group}\`.`, "group", "model_group_not_found");

export const idempotencyConflict = (idempotencyKey: string) =>
  new GatewayError(
    409,
    "invalid_request_error",
    "idempotency_key_reused",
    `The idempotency key \`${idempotencyKey}\` was already used for a different credit.`,
    "idempotency_key",
  );

export const revokedKeyConflict = () =>
  new GatewayError(
    409,
    "invalid_request_error",
    "conflict",
    "That API key exists and has been revoked; choose another.",
  );
