import { callUnary, serviceUnavailable } from "@gateway/platform";
import type { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { Message } from "@gateway/proto/router/v1/chat";
import { VALUE_WEIGHT_BYTES } from "../http/json-weight.js";
import type { RenderedResponse } from "../openai-wire/render-response.js";

/** A stored response and the conversation up to and including it, minus instructions. */
export interface StoredResponse {
  response: RenderedResponse;
  conversation: Message[];
}

const ledgerDeadlineMs = 10_000;

/** The bytes a conversation takes in the store (its protobuf encoding, as ledger keeps it). */
export const conversationBytes = (conversation: readonly Message[]) =>
  conversation.reduce((total, message) => total + Message.encode(message).finish().length, 0);

/**
 * What a loaded conversation weighs against the body budget, in its units: its bytes, plus
 * each message and part as a value of a JSON body (http/json-weight.ts).
 */
export const conversationWeight = (conversation: readonly Message[]) =>
  conversation.reduce(
    (total, message) => total + (1 + message.parts.length + message.toolCalls.length) * VALUE_WEIGHT_BYTES,
    conversationBytes(conversation),
  );

/**
 * Stored responses, for `previous_response_id`, retrieve and delete: a table in ledger's
 * Postgres (durable, and apart from the Redis that holds billing reservations), reached over
 * ledger's gRPC API; each is scoped to its account and expires after ledger's retention.
 */
export class ResponseStore {
  constructor(
    private readonly ledger: LedgerServiceClient,
    // The largest conversation (edge's `RESPONSES_MAX_STORED_BYTES`) a stored response may carry.
    readonly maxStoredBytes: number,
  ) {}

  async save(accountId: string, stored: StoredResponse): Promise<void> {
    const request = {
      key: { accountId, responseId: stored.response.id },
      stored: { responseJson: JSON.stringify(stored.response), conversation: stored.conversation },
    };
    await this.call(() => callUnary(this.ledger.storeResponse.bind(this.ledger), request, ledgerDeadlineMs));
  }

  async load(accountId: string, responseId: string): Promise<StoredResponse | undefined> {
    const key = { accountId, responseId };
    const { stored } = await this.call(() =>
      callUnary(this.ledger.getStoredResponse.bind(this.ledger), key, ledgerDeadlineMs),
    );
    if (!stored) return undefined;
    return { response: JSON.parse(stored.responseJson) as RenderedResponse, conversation: stored.conversation };
  }

  /** Whether there was such a response to remove. */
  async remove(accountId: string, responseId: string): Promise<boolean> {
    const key = { accountId, responseId };
    const { deleted } = await this.call(() =>
      callUnary(this.ledger.deleteStoredResponse.bind(this.ledger), key, ledgerDeadlineMs),
    );
    return deleted;
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch {
      throw serviceUnavailable("Stored responses are temporarily unavailable. Please retry.");
    }
  }
}
