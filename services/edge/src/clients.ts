import { LedgerServiceClient } from "@gateway/proto/ledger/v1/ledger";
import { RouterServiceClient } from "@gateway/proto/router/v1/router";
import { VideoServiceClient } from "@gateway/proto/video/v1/video";
import { channelOptions, insecureChannel } from "@gateway/shared";
import type { NatsConnection } from "nats";

export interface EdgeClients {
  router: RouterServiceClient;
  ledger: LedgerServiceClient;
  video: VideoServiceClient;
  nats: NatsConnection;
}

/** One long-lived HTTP/2 channel per service; gRPC multiplexes every request over it. */
export function createGrpcClients(routerUrl: string, ledgerUrl: string, videoUrl: string) {
  return {
    router: new RouterServiceClient(routerUrl, insecureChannel(), channelOptions),
    ledger: new LedgerServiceClient(ledgerUrl, insecureChannel(), channelOptions),
    video: new VideoServiceClient(videoUrl, insecureChannel(), channelOptions),
  };
}
