import type { CatalogueModel } from "@gateway/catalogue/catalogue";
import type { VendorProtocol } from "@gateway/catalogue/catalogue-schema";
import type { ChatRequest } from "@gateway/proto/router/v1/chat";
import { echoed, invalidRequest } from "@gateway/shared";

type Surcharge = keyof NonNullable<CatalogueModel["surcharges"]>;

// What each vendor option's values cost: a surcharge the catalogue must price, or nothing extra.
// OpenAI's "flex" costs the vendor half, but the gateway's price list has no discount for it; "scale"
// is reserved capacity under a contract, with no per-token price. Claude's service_tier picks between
// standard capacity and a committed Priority Tier, neither priced per request.
const openAIServiceTiers: Record<string, Surcharge | "standard"> = {
  auto: "standard",
  default: "standard",
  flex: "standard",
  priority: "priority",
};
const claudeSpeeds: Record<string, Surcharge | "standard"> = { standard: "standard", fast: "fast" };
const claudeInferenceGeos: Record<string, Surcharge | "standard"> = { global: "standard", us: "us_inference" };

interface AskedOption {
  field: string;
  value: unknown;
  prices: Record<string, Surcharge | "standard">;
}

const parsed = (json: string): Record<string, unknown> => (json ? (JSON.parse(json) as Record<string, unknown>) : {});

/** The priced options the request sets that its vendor's adapter sends on (others never reach a vendor). */
function askedOptions(request: ChatRequest, protocol: VendorProtocol): AskedOption[] {
  if (protocol === "openai-compatible") {
    const extra = parsed(request.extraJson);
    return [{ field: "service_tier", value: extra.service_tier, prices: openAIServiceTiers }];
  }
  if (protocol === "anthropic") {
    const extra = parsed(request.anthropicExtraJson);
    return [
      { field: "speed", value: extra.speed, prices: claudeSpeeds },
      { field: "inference_geo", value: extra.inference_geo, prices: claudeInferenceGeos },
    ];
  }
  return [];
}

/**
 * The request's price multiplier in basis points for the vendor options it sets (10,000: none),
 * from the catalogue's surcharges; an option the model's entry does not price is refused, so no
 * surcharged call is ever billed at the standard price.
 */
export function surchargeBasisPoints(request: ChatRequest, model: CatalogueModel, protocol: VendorProtocol): number {
  let basisPoints = 10_000;
  for (const { field, value, prices } of askedOptions(request, protocol)) {
    if (value === undefined || value === null) continue;
    const surcharge = typeof value === "string" ? prices[value] : undefined;
    const multiplier = surcharge === "standard" ? 10_000 : surcharge && model.surcharges?.[surcharge];
    if (!multiplier) {
      throw invalidRequest(
        `Unsupported value: '${field}' ${echoed(String(value))} has no price for \`${model.id}\` at this gateway.`,
        field,
        "unsupported_value",
      );
    }
    basisPoints = Math.round((basisPoints * multiplier) / 10_000);
  }
  return basisPoints;
}

/** The model as this request is priced: every token price times the surcharge, rounded up. */
export function pricedModel(model: CatalogueModel, basisPoints: number): CatalogueModel {
  if (basisPoints === 10_000) return model;
  const times = (price: number) => Math.ceil((price * basisPoints) / 10_000);
  const { input, output, cache_read, cache_write } = model.price;
  return {
    ...model,
    price: {
      input: times(input),
      output: times(output),
      ...(cache_read !== undefined && { cache_read: times(cache_read) }),
      ...(cache_write !== undefined && { cache_write: times(cache_write) }),
    },
  };
}
