import type { ModelEntry } from "./catalogue-schema.js";

const editsEndpoint = "/v1/images/edits";

/** Inconsistencies of a model's images and audio blocks that the schema alone cannot see. */
export function mediaRulesProblems(model: ModelEntry): string[] {
  const rules = model.images;
  const problems: string[] = [];
  const at = `models.${model.id}.images`;
  if (model.endpoints.includes("/v1/images/generations") && !rules) {
    problems.push(`models.${model.id}: serves /v1/images/generations but has no images rules`);
  }
  if (model.endpoints.includes("/v1/audio/transcriptions") && !model.audio) {
    problems.push(`models.${model.id}: serves /v1/audio/transcriptions but has no audio rules`);
  }
  if (model.endpoints.includes(editsEndpoint) && !rules?.edits) {
    problems.push(`models.${model.id}: serves ${editsEndpoint} but has no images.edits rules`);
  }
  if (!rules) return problems;
  if (rules.edits && !model.endpoints.includes(editsEndpoint)) {
    problems.push(`${at}.edits: the model does not list ${editsEndpoint}`);
  }
  if (!rules.sizes.includes(rules.default_size)) problems.push(`${at}.default_size is not one of sizes`);
  if (rules.aspect_ratios) {
    const ratios = rules.aspect_ratios;
    for (const size of rules.sizes) if (!ratios[size]) problems.push(`${at}.aspect_ratios has no ratio for ${size}`);
    for (const size of Object.keys(ratios)) {
      if (!rules.sizes.includes(size)) problems.push(`${at}.aspect_ratios names ${size}, which is not one of sizes`);
    }
  }
  if (!rules.qualities.includes(rules.default_quality)) problems.push(`${at}.default_quality is not one of qualities`);
  if (rules.image_input_price !== undefined) {
    // Billed by token: the entry's own token prices are the bill, and no per-image price may contradict them.
    if (!model.price) problems.push(`${at}.image_input_price is set but the model sets no token price`);
    if (Object.keys(rules.prices).length > 0) problems.push(`${at} is billed by token and has per-image prices too`);
    return problems;
  }
  // "auto" is priced as the default quality, so every other size and quality needs a price.
  for (const size of rules.sizes) {
    for (const quality of rules.qualities.filter((name) => name !== "auto")) {
      if (rules.prices[size]?.[quality] === undefined) problems.push(`${at}.prices has no ${size} ${quality} price`);
    }
  }
  return problems;
}
