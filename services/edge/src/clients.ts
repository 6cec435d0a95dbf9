import { everyMethod, failoverOptions, grpcTarget, insecureChannel, serviceClientOptions } from "@gateway/platform";
import { LedgerServiceClient, LedgerServiceService } from "@gateway/proto/ledger/v1/ledger";
import { AudioServiceService } from "@gateway/proto/router/v1/audio";
import { CompletionServiceService } from "@gateway/proto/router/v1/completions";
import { EmbeddingServiceService } from "@gateway/proto/router/v1/embeddings";
import { ImageServiceService } from "@gateway/proto/router/v1/images";
import { RouterServiceClient, RouterServiceService } from "@gateway/proto/router/v1/router";
import { VideoServiceClient, VideoServiceService } from "@gateway/proto/video/v1/video";
import type { NatsConnection } from "nats";
import { routerServices } from "./router-services.js";

export interface EdgeClients {
  router: RouterServiceClient;
  ledger: LedgerServiceClient;
  // Ledger again, on a connection of its own, for stored Responses conversations.
  storedResponses: LedgerServiceClient;
  video: VideoServiceClient;
  // The router's other services, on the router client's channel.
  routerServices: ReturnType<typeof routerServices>;
  nats: NatsConnection;
}

// A call a replica lost (killed, draining) goes to another when a second run is harmless:
// - router, every method: router sends its headers before it calls a vendor, which ends the
//   retries (call-headers.ts); before that it has only reserved the cost and taken a rate-limit
//   slot, both keyed by the request id, which the next router's admission replaces.
// - ledger: key lookups and stored-Response reads, and storing one (an upsert of its id); not
//   deleting one, whose second run would answer "not found" for a response the first deleted.
// - video: reads of a task and its content, and a submit: its second run answers the task the
//   first stored under the request id, and leaves that task's reservation alone.
const routerRetries = everyMethod(
  RouterServiceService,
  CompletionServiceService,
  EmbeddingServiceService,
  ImageServiceService,
  AudioServiceService,
);
const ledgerRetries = [
  LedgerServiceService.resolveKey,
  LedgerServiceService.storeResponse,
  LedgerServiceService.getStoredResponse,
];
const videoRetries = [
  VideoServiceService.submitVideo,
  VideoServiceService.getVideo,
  VideoServiceService.readVideoContent,
];

/**
 * One long-lived HTTP/2 channel per service (ledger's stored conversations on a second one),
 * balanced over its replicas, every call signed as edge; gRPC multiplexes requests over it.
 */
export function createGrpcClients(
  urls: { ROUTER_URL: string; LEDGER_URL: string; VIDEO_URL: string },
  serviceTokenSecret: string | undefined,
) {
  const options = serviceClientOptions("edge", serviceTokenSecret);
  const router = new RouterServiceClient(grpcTarget(urls.ROUTER_URL), insecureChannel(), {
    ...options,
    ...failoverOptions(routerRetries),
  });
  const ledgerOptions = { ...options, ...failoverOptions(ledgerRetries) };
  return {
    router,
    routerServices: routerServices(router, options.interceptors),
    ledger: new LedgerServiceClient(grpcTarget(urls.LEDGER_URL), insecureChannel(), ledgerOptions),
    // A stored conversation is up to RESPONSES_MAX_STORED_BYTES: on the key lookups' connection,
    // a wave of loads would queue every tenant's key lookup behind hundreds of megabytes.
    storedResponses: new LedgerServiceClient(grpcTarget(urls.LEDGER_URL), insecureChannel(), {
      ...ledgerOptions,
      "grpc.use_local_subchannel_pool": 1,
    }),
    video: new VideoServiceClient(grpcTarget(urls.VIDEO_URL), insecureChannel(), {
      ...options,
      ...failoverOptions(videoRetries),
    }),
  };
}
