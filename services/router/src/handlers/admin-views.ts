import type { ModelEntry } from "@gateway/catalogue/catalogue-schema";
import { pricesAt, type TokenPrices } from "@gateway/catalogue/token-prices";
import {
  type CatalogueDescription,
  type CatalogueModel,
  type ChannelHealthList,
  CircuitState,
} from "@gateway/proto/router/v1/router";
import type { RouterDependencies } from "./router-dependencies.js";

const circuitStates = [
  CircuitState.CIRCUIT_STATE_CLOSED,
  CircuitState.CIRCUIT_STATE_OPEN,
  CircuitState.CIRCUIT_STATE_HALF_OPEN,
];

/** Every channel of the catalogue with the circuit this router tracks for it. */
export function getChannelHealth(deps: Pick<RouterDependencies, "catalogue" | "health">) {
  return async (): Promise<ChannelHealthList> => {
    const catalogue = deps.catalogue.current;
    const served = new Map<string, { models: number; simulated: boolean }>();
    for (const model of catalogue.all()) {
      for (const channel of model.channels) {
        const entry = served.get(channel.name) ?? { models: 0, simulated: channel.simulated };
        served.set(channel.name, { ...entry, models: entry.models + 1 });
      }
    }
    return {
      channels: Object.entries(catalogue.source.channels).map(([name, channel]) => {
        const snapshot = deps.health.snapshot(name);
        return {
          name,
          vendor: channel.vendor,
          models: served.get(name)?.models ?? 0,
          circuit: circuitStates[snapshot.circuit]!,
          consecutiveFailures: snapshot.consecutiveFailures,
          reopensInMs: snapshot.circuit === 1 ? deps.health.waitMs(name) : 0,
          // Without vendor credentials in production, or disabled by an operator.
          disabled: catalogue.disabledChannels.includes(name) || channel.disabled === true,
          simulated: served.get(name)?.simulated ?? false,
        };
      }),
    };
  };
}

/** Which rule set makes the model what it is; chat when it has none. */
function kindOf(model: ModelEntry): string {
  if (model.images) return "image";
  if (model.audio) return "audio";
  if (model.video) return "video";
  if (model.embedding) return "embedding";
  return "chat";
}

function describeModel(
  model: ModelEntry,
  ownedBy: string,
  servable: boolean,
  tokenPrices: TokenPrices,
): CatalogueModel {
  const imagePrices = Object.entries(model.images?.prices ?? {}).flatMap(([size, byQuality]) =>
    Object.entries(byQuality).map(([quality, price]) => ({ size, quality, price })),
  );
  // The prices of a short prompt: the description carries no bands.
  const price = pricesAt(tokenPrices, 0);
  return {
    id: model.id,
    vendor: model.vendor,
    ownedBy,
    kind: kindOf(model),
    groups: model.groups,
    contextWindow: model.context_window,
    prices: {
      input: price.input,
      output: price.output,
      cacheRead: price.cache_read,
      cacheWrite: price.cache_write,
    },
    imagePrices,
    pricePerSecond: model.audio?.price_per_second ?? model.video?.price_per_second,
    servable,
  };
}

/** The catalogue as written: groups with their limits, every model with its prices. */
export function describeCatalogue(deps: Pick<RouterDependencies, "catalogue">) {
  return async (): Promise<CatalogueDescription> => {
    const catalogue = deps.catalogue.current;
    const { groups, vendors, models } = catalogue.source;
    const servable = new Set(catalogue.all().flatMap((model) => (model.channels.length > 0 ? [model.id] : [])));
    return {
      groups: Object.entries(groups).map(([name, group]) => ({
        name,
        description: group.description,
        limits: {
          requestsPerMinute: group.limits?.requests_per_minute,
          tokensPerMinute: group.limits?.tokens_per_minute,
          concurrentRequests: group.limits?.concurrent_requests,
        },
      })),
      models: models.map((model) =>
        describeModel(model, vendors[model.vendor]!.owned_by, servable.has(model.id), catalogue.priceOf(model.id)!),
      ),
    };
  };
}
