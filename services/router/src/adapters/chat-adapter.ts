import type { CatalogueModel } from "@gateway/catalogue";
import type { ChatChunk, ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import type { KeyedChannel } from "../routing/channel-keys.js";
import type { VendorTimeouts } from "../vendor-http/vendor-client.js";

/**
 * One attempt on one channel with one of its keys; embeddings and other endpoint families bring
 * their own request type. `model.id` is the id the channel's vendor knows the model by.
 */
export interface AdapterCall<Request = ChatRequest> {
  request: Request;
  model: CatalogueModel;
  channel: KeyedChannel;
  signal: AbortSignal;
  timeouts: VendorTimeouts;
}

/**
 * Speaks one vendor protocol. Both methods report usage: `complete` in the result,
 * `stream` as a chunk carrying `usage` (possibly together with choices).
 */
export interface ChatAdapter {
  complete(call: AdapterCall): Promise<ChatCompletion>;
  stream(call: AdapterCall): AsyncIterable<ChatChunk>;
  /** The request's input tokens as the vendor counts them, where the vendor offers that. */
  countTokens?(call: AdapterCall): Promise<number>;
}
