import type { CatalogueModel, Channel } from "@gateway/catalogue/catalogue";
import type { ChatChunk, ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import type { VendorTimeouts } from "../vendor-http/vendor-client.js";

/** One attempt on one channel; embeddings and other endpoint families bring their own request type. */
export interface AdapterCall<Request = ChatRequest> {
  request: Request;
  model: CatalogueModel;
  channel: Channel;
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
