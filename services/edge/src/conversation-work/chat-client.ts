import { insecureChannel } from "@gateway/platform";
import { type ChatChunk, type ChatCompletion, ChatRequest } from "@gateway/proto/router/v1/chat";
import { RouterServiceService } from "@gateway/proto/router/v1/router";
import {
  type CallOptions,
  type Client,
  type ClientReadableStream,
  type ClientUnaryCall,
  type Interceptor,
  type Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from "@grpc/grpc-js";

/** A canonical request, or one a conversation worker already encoded. */
export type ChatCall = ChatRequest | Uint8Array;

const serialize = (request: ChatCall) =>
  request instanceof Uint8Array
    ? Buffer.from(request.buffer, request.byteOffset, request.byteLength)
    : Buffer.from(ChatRequest.encode(request).finish());

/** Router's chat methods, taking either form of the request. */
export interface ChatClient {
  createChatCompletion(
    request: ChatCall,
    metadata: Metadata,
    options: Partial<CallOptions>,
    callback: (error: ServiceError | null, answer: ChatCompletion) => void,
  ): ClientUnaryCall;
  streamChatCompletion(
    request: ChatCall,
    metadata: Metadata,
    options: Partial<CallOptions>,
  ): ClientReadableStream<ChatChunk>;
}

const ChatClientConstructor = makeGenericClientConstructor(
  {
    createChatCompletion: { ...RouterServiceService.createChatCompletion, requestSerialize: serialize },
    streamChatCompletion: { ...RouterServiceService.streamChatCompletion, requestSerialize: serialize },
  },
  "gateway.router.v1.RouterService",
);

/** The chat methods on the router client's own channel (its balancing and retries) and interceptors. */
export function chatClient(router: Client, interceptors: Interceptor[]): ChatClient {
  const options = { channelOverride: router.getChannel(), interceptors };
  return new ChatClientConstructor(
    router.getChannel().getTarget(),
    insecureChannel(),
    options,
  ) as unknown as ChatClient;
}
