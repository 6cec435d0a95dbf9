import { CatalogueRefused } from "@gateway/catalogue/store";
import { invalidRequest, unaryHandler } from "@gateway/platform";
import type {
  CatalogueChangeList,
  CatalogueChangeRequest,
  CatalogueChangeResult,
  ListCatalogueChangesRequest,
  StoredCatalogue,
} from "@gateway/proto/router/v1/catalogue_admin";
import type { CatalogueAdmin } from "./catalogue-admin.js";

const MAX_CHANGES_LISTED = 500;
const json = (value: unknown) => (value === undefined || value === null ? "" : JSON.stringify(value));

/** CatalogueAdminService: the console's way to the same operations `pnpm gw` uses over HTTP. */
export function catalogueAdminHandlers(admin: CatalogueAdmin) {
  return {
    getCatalogue: unaryHandler(async (): Promise<StoredCatalogue> => {
      const { revision, catalogue } = await admin.read();
      return { revision, catalogueJson: json(catalogue) };
    }),
    changeCatalogue: unaryHandler(async (request: CatalogueChangeRequest): Promise<CatalogueChangeResult> => {
      let change: unknown;
      try {
        change = JSON.parse(request.changeJson);
      } catch {
        throw invalidRequest("change_json is not JSON", "change_json");
      }
      try {
        return await admin.change(request.actor || "console", change);
      } catch (error) {
        if (error instanceof CatalogueRefused) throw invalidRequest(error.message, "change_json", "catalogue_refused");
        throw error;
      }
    }),
    listCatalogueChanges: unaryHandler(async (request: ListCatalogueChangesRequest): Promise<CatalogueChangeList> => {
      const limit = Math.min(Math.max(request.limit || 50, 1), MAX_CHANGES_LISTED);
      const changes = await admin.history(limit);
      return {
        changes: changes.map((change) => ({
          revision: change.revision,
          actor: change.actor,
          action: change.action,
          kind: change.kind,
          name: change.name,
          beforeJson: json(change.before),
          afterJson: json(change.after),
          changedAt: change.at,
        })),
      };
    }),
  };
}
