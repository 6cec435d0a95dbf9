import type { RequestFacts } from "@gateway/billing";
import type { CatalogueModel, VendorProtocol } from "@gateway/catalogue";
import { mapTokenPrices, scaleTokenPrice } from "@gateway/catalogue";
import { echoed, invalidRequest } from "@gateway/platform";
import type { ChatRequest, Usage } from "@gateway/proto/router/v1/chat";

export type Surcharge = keyof NonNullable<CatalogueModel["surcharges"]>;

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
 * The surcharges the vendor options the request sets ask for, from the catalogue; an option the
 * model's entry does not price is refused, so no surcharged call is ever billed at the standard price.
 */
export function requestedSurcharges(
  request: ChatRequest,
  model: CatalogueModel,
  protocol: VendorProtocol,
): Surcharge[] {
  return surchargesOf(askedOptions(request, protocol), model);
}

/** The surcharge a Responses request relayed to OpenAI asks for with its `service_tier`, as for chat. */
export const responsesSurcharges = (serviceTier: unknown, model: CatalogueModel): Surcharge[] =>
  surchargesOf([{ field: "service_tier", value: serviceTier, prices: openAIServiceTiers }], model);

function surchargesOf(options: readonly AskedOption[], model: CatalogueModel): Surcharge[] {
  const surcharges: Surcharge[] = [];
  for (const { field, value, prices } of options) {
    if (value === undefined || value === null) continue;
    const surcharge = typeof value === "string" ? prices[value] : undefined;
    if (surcharge === "standard") continue;
    if (!surcharge || !model.surcharges?.[surcharge]) {
      throw invalidRequest(
        `Unsupported value: '${field}' ${echoed(String(value))} has no price for \`${model.id}\` at this gateway.`,
        field,
        "unsupported_value",
      );
    }
    surcharges.push(surcharge);
  }
  return surcharges;
}

/** The model as priced with these surcharges (each priced by its entry): every token price times them, rounded up. */
export function pricedModel(model: CatalogueModel, surcharges: readonly Surcharge[]): CatalogueModel {
  let basisPoints = 10_000;
  for (const surcharge of surcharges) basisPoints = (basisPoints * (model.surcharges?.[surcharge] ?? 10_000)) / 10_000;
  if (basisPoints === 10_000) return model;
  const times = (price: number) => Math.ceil((price * basisPoints) / 10_000);
  return { ...model, price: mapTokenPrices(model.price, (price) => scaleTokenPrice(price, times)) };
}

// Whether the vendor's answer says a surcharge applied; undefined where it does not say.
const statedByVendor: Record<Surcharge, (usage: Usage) => boolean | undefined> = {
  priority: (usage) => (usage.serviceTier === undefined ? undefined : usage.serviceTier === "priority"),
  fast: (usage) => (usage.speed === undefined ? undefined : usage.speed === "fast"),
  us_inference: (usage) => (usage.inferenceGeo === undefined ? undefined : usage.inferenceGeo === "us"),
};

/**
 * The request's facts priced as the vendor says it served the call: a surcharge it did not apply
 * (priority capacity it lacked, fast mode it fell back from) is not billed, one it applied unasked
 * (a project's default tier) is, where the catalogue prices it; where the answer does not say,
 * what was asked is billed.
 */
export function pricedAsServed(facts: RequestFacts, usage: Usage | undefined): RequestFacts {
  const standard = facts.surcharged?.standard ?? facts.model;
  const asked = facts.surcharged?.options ?? [];
  const served = (Object.keys(statedByVendor) as Surcharge[]).filter((surcharge) => {
    const stated = usage && statedByVendor[surcharge](usage);
    return stated ?? asked.includes(surcharge);
  });
  const same = served.length === asked.length && served.every((surcharge) => asked.includes(surcharge));
  return same ? facts : { ...facts, model: pricedModel(standard, served) };
}
