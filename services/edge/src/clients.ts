import { grpcTarget, insecureChannel, serviceClientOptions } from "@gateway/platform";
import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { RouterServiceClient } from "@gateway/proto/router/v1/router";
import { VideoServiceClient } from "@gateway/proto/video/v1/video";
import type { NatsConnection } from "nats";
import { routerServices } from "./router-services.js";

export interface EdgeClients {
  router: RouterServiceClient;
  ledger: LedgerServiceClient;
  video: VideoServiceClient;
  // The router's other services, on the router client's channel.
  routerServices: ReturnType<typeof routerServices>;
  nats: NatsConnection;
}

/** One long-lived HTTP/2 channel per service (balanced over its replicas), every call signed as edge; gRPC multiplexes requests over it. */
export function createGrpcClients(
  urls: { ROUTER_URL: string; LEDGER_URL: string; VIDEO_URL: string },
  serviceTokenSecret: string | undefined,
) {
  const options = serviceClientOptions("edge", serviceTokenSecret);
  const router = new RouterServiceClient(grpcTarget(urls.ROUTER_URL), insecureChannel(), options);
  return {
    router,
    routerServices: routerServices(router, options.interceptors),
    ledger: new LedgerServiceClient(grpcTarget(urls.LEDGER_URL), insecureChannel(), options),
    video: new VideoServiceClient(grpcTarget(urls.VIDEO_URL), insecureChannel(), options),
  };
}
