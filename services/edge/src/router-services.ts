import { insecureChannel } from "@gateway/platform";
import { AudioServiceClient } from "@gateway/proto/router/v1/audio";
import { CompletionServiceClient } from "@gateway/proto/router/v1/completions";
import { EmbeddingServiceClient } from "@gateway/proto/router/v1/embeddings";
import { ImageServiceClient } from "@gateway/proto/router/v1/images";
import { ResponsesRelayServiceClient } from "@gateway/proto/router/v1/responses_relay";
import type { Client, Interceptor } from "@grpc/grpc-js";
import { chatClient } from "./conversation-work/chat-client.js";

/**
 * Clients of the router's other services on the router client's own HTTP/2 channel, so
 * every endpoint family shares one connection and edge's wiring stays as it is.
 */
export function routerServices(router: Client, interceptors: Interceptor[]) {
  const options = { channelOverride: router.getChannel(), interceptors };
  const target = router.getChannel().getTarget();
  return {
    chat: chatClient(router, interceptors),
    completions: new CompletionServiceClient(target, insecureChannel(), options),
    embeddings: new EmbeddingServiceClient(target, insecureChannel(), options),
    images: new ImageServiceClient(target, insecureChannel(), options),
    audio: new AudioServiceClient(target, insecureChannel(), options),
    responsesRelay: new ResponsesRelayServiceClient(target, insecureChannel(), options),
  };
}
