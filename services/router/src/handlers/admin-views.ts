import type { Channel, ModelEntry } from "@gateway/catalogue";
import { pricesAt, type TokenPrices } from "@gateway/catalogue";
import {
  type CatalogueDescription,
  type CatalogueModel,
  type ChannelHealthList,
  type ChannelKeyHealth,
  CircuitState,
} from "@gateway/proto/router/v1/router";
import type { ChannelDisabler } from "../routing/channel-disabler.js";
import type { RouterDependencies } from "./router-dependencies.js";

const circuitStates = [
  CircuitState.CIRCUIT_STATE_CLOSED,
  CircuitState.CIRCUIT_STATE_OPEN,
  CircuitState.CIRCUIT_STATE_HALF_OPEN,
];

/** A channel's keys, masked, with the refusals this router holds against them. */
function keysHealth(channel: Channel, disabler: ChannelDisabler): ChannelKeyHealth[] {
  return channel.keys.map((key) => {
    const disablement = disabler.disablement(channel.name, key.id);
    return {
      id: key.id,
      masked: key.masked,
      disabled: disablement !== undefined,
      reason: disablement?.reason ?? "",
      disabledAtMs: disablement?.atMs ?? 0,
      vendorStatus: disablement?.vendorStatus ?? 0,
      vendorMessage: disablement?.vendorMessage ?? "",
    };
  });
}

/** Every channel of the catalogue with the circuit and the key refusals this router tracks for it. */
export function getChannelHealth(deps: Pick<RouterDependencies, "catalogue" | "health" | "keys">) {
  return async (): Promise<ChannelHealthList> => {
    const catalogue = deps.catalogue.current;
    const served = new Map<string, { models: number; channel: Channel }>();
    for (const model of catalogue.all()) {
      for (const channel of model.channels) {
        served.set(channel.name, { models: (served.get(channel.name)?.models ?? 0) + 1, channel });
      }
    }
    return {
      channels: Object.entries(catalogue.source.channels).map(([name, channel]) => {
        const snapshot = deps.health.snapshot(name);
        const serving = served.get(name)?.channel ?? catalogue.heldChannels.get(name);
        const keys = serving ? keysHealth(serving, deps.keys.disabler) : [];
        return {
          name,
          vendor: channel.vendor,
          models: served.get(name)?.models ?? 0,
          circuit: circuitStates[snapshot.circuit]!,
          consecutiveFailures: snapshot.consecutiveFailures,
          reopensInMs: snapshot.circuit === 1 ? deps.health.waitMs(name) : 0,
          // Without vendor credentials in production, or disabled by an operator.
          disabled: catalogue.disabledChannels.includes(name) || channel.disabled === true,
          simulated: serving?.simulated ?? false,
          keys,
          keysExhausted: keys.length > 0 && keys.every((key) => key.disabled),
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
        multiplierBasisPoints: group.multiplier_basis_points,
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
