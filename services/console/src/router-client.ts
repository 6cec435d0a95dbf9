import { RouterServiceService } from "@gateway/proto/router/v1/router";
import { connectService, type PromiseClient } from "./grpc-client.js";

/** Read-only views of router.v1.RouterService: the admin pages' and the public price list's. */
export type RouterViews = Pick<
  PromiseClient<typeof RouterServiceService>,
  "getChannelHealth" | "describeCatalogue" | "listModels"
>;

export function connectRouter(
  url: string,
  serviceTokenSecret: string | undefined,
): { router: RouterViews; close(): void } {
  const { getChannelHealth, describeCatalogue, listModels } = RouterServiceService;
  const { client, close } = connectService(
    { getChannelHealth, describeCatalogue, listModels },
    url,
    serviceTokenSecret,
  );
  return { router: client, close };
}
