import { RouterServiceService } from "@gateway/proto/router/v1/router";
import { connectService, type PromiseClient } from "./grpc-client.js";

/** The admin pages' read-only views of router.v1.RouterService (streaming methods left out). */
export type RouterViews = Pick<PromiseClient<typeof RouterServiceService>, "getChannelHealth" | "describeCatalogue">;

export function connectRouter(
  url: string,
  serviceTokenSecret: string | undefined,
): { router: RouterViews; close(): void } {
  const { getChannelHealth, describeCatalogue } = RouterServiceService;
  const { client, close } = connectService({ getChannelHealth, describeCatalogue }, url, serviceTokenSecret);
  return { router: client, close };
}
