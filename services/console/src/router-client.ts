import { CatalogueAdminServiceService } from "@gateway/proto/router/v1/catalogue_admin";
import { RouterServiceService } from "@gateway/proto/router/v1/router";
import { connectService, type PromiseClient } from "./grpc-client.js";

/** Read-only views of router.v1.RouterService: the admin pages' and the public price list's. */
export type RouterViews = Pick<
  PromiseClient<typeof RouterServiceService>,
  "getChannelHealth" | "describeCatalogue" | "listModels"
>;

/** The catalogue's admin operations (CatalogueAdminService) and a channel's test call. */
export type CatalogueEditor = PromiseClient<typeof CatalogueAdminServiceService> &
  Pick<PromiseClient<typeof RouterServiceService>, "testChannel">;

export function connectRouter(
  url: string,
  serviceTokenSecret: string | undefined,
): { router: RouterViews; catalogueEditor: CatalogueEditor; close(): void } {
  const { getChannelHealth, describeCatalogue, listModels, testChannel } = RouterServiceService;
  const { client, close } = connectService(
    { getChannelHealth, describeCatalogue, listModels, testChannel, ...CatalogueAdminServiceService },
    url,
    serviceTokenSecret,
  );
  return { router: client, catalogueEditor: client, close };
}
