import type { ModelList } from "@gateway/proto/router/v1/router";
import type { Router } from "express";
import type { RouterViews } from "../router-client.js";

// Anonymous visitors must not each cost the router a call per group: one list serves them all
// for this long, well inside the time a catalogue change takes to be seen anyway.
const FRESH_MS = 1_000;

async function priceList(router: RouterViews) {
  const { groups } = await router.describeCatalogue({});
  const lists: ModelList[] = await Promise.all(groups.map(({ name }) => router.listModels({ modelGroup: name })));
  return {
    groups: groups.map(({ name, description, multiplierBasisPoints }, index) => ({
      name,
      description,
      multiplierBasisPoints,
      models: lists[index]!.models,
    })),
  };
}

/**
 * The public price list (new-api's model square), needing no session: every group of the
 * catalogue with the models its keys can use and their prices for that group, as /v1/models
 * shows them to the group's keys.
 */
export function priceListRoutes(api: Router, router: RouterViews): void {
  let latest: { at: number; list: ReturnType<typeof priceList> } | undefined;
  api.get("/pricing", async (_request, response) => {
    const now = Date.now();
    if (!latest || now - latest.at > FRESH_MS) {
      const list = priceList(router);
      latest = { at: now, list };
      // A failed fetch is not kept: the next visitor tries again.
      list.catch(() => {
        if (latest?.list === list) latest = undefined;
      });
    }
    response.json(await latest.list);
  });
}
