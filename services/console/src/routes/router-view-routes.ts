import { CircuitState } from "@gateway/proto/router/v1/router";
import type { RequestHandler, Router } from "express";
import type { RouterViews } from "../router-client.js";

const circuitNames: Record<CircuitState, string> = {
  [CircuitState.CIRCUIT_STATE_UNSPECIFIED]: "closed",
  [CircuitState.CIRCUIT_STATE_CLOSED]: "closed",
  [CircuitState.CIRCUIT_STATE_OPEN]: "open",
  [CircuitState.CIRCUIT_STATE_HALF_OPEN]: "half_open",
  [CircuitState.UNRECOGNIZED]: "closed",
};

/** The admin pages' channel health and catalogue, as the router that answers sees them. */
export function routerViewRoutes(api: Router, router: RouterViews, requireAdmin: RequestHandler): void {
  api.get("/admin/channels", requireAdmin, async (_request, response) => {
    const { channels } = await router.getChannelHealth({});
    // One word for the health badge: a disabled channel, or one whose every key the vendor
    // refused, serves nothing whatever its circuit; a closed circuit whose last requests (or
    // channel test) failed is failing, not healthy, until one succeeds.
    const statusOf = (circuit: CircuitState, channel: Omit<(typeof channels)[number], "circuit">) => {
      if (channel.disabled) return "disabled";
      if (channel.keysExhausted) return "keys_refused";
      const name = circuitNames[circuit];
      return name === "closed" && channel.consecutiveFailures > 0 ? "failing" : name;
    };
    response.json({
      channels: channels.map(({ circuit, ...channel }) => ({ ...channel, status: statusOf(circuit, channel) })),
    });
  });
  api.get("/admin/catalogue", requireAdmin, async (_request, response) => {
    response.json(await router.describeCatalogue({}));
  });
}
