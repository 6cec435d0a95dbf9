import { join } from "node:path";
import { Catalogue, type CatalogueModel } from "@gateway/catalogue";
import { repoRoot } from "@gateway/stack";

// The conformance matrix's axes: ingress formats, vendor families, features; and which model of
// a family each feature is tried on, chosen from the shipped catalogue rather than by hand.

export const features = [
  "text",
  "stream",
  "tools",
  "streamed tools",
  "parallel tools",
  "vision",
  "structured output",
  "reasoning",
  "prompt caching",
  "usage exact",
] as const;
export type Feature = (typeof features)[number];

export const ingresses = ["OpenAI chat", "OpenAI Responses", "Anthropic Messages", "Gemini"] as const;
export type Ingress = (typeof ingresses)[number];

export const families = [
  { family: "OpenAI", vendor: "openai" },
  { family: "Anthropic", vendor: "anthropic" },
  { family: "Gemini", vendor: "google" },
  { family: "xAI Grok", vendor: "xai" },
  { family: "DeepSeek", vendor: "deepseek" },
  { family: "Qwen", vendor: "alibaba" },
  { family: "Kimi", vendor: "moonshot" },
] as const;
export type Family = (typeof families)[number]["family"];

/** Accounts of this group can call every model. */
export const conformanceGroup = "premium";

const catalogue = Catalogue.fromFile(join(repoRoot, "infra/catalogue/models.yaml"), {
  env: {},
  // Only so that every model has a channel: nothing is called through this copy.
  simulatorUrl: "http://127.0.0.1:1",
});

type Capability = CatalogueModel["capabilities"][number];
const needs: Partial<Record<Feature, Capability>> = {
  tools: "tools",
  "streamed tools": "tools",
  "parallel tools": "tools",
  vision: "vision",
  "structured output": "json",
  reasoning: "reasoning",
};

const offers = (model: CatalogueModel, feature: Feature) => {
  const capability = needs[feature];
  if (capability && !model.capabilities.includes(capability)) return false;
  return feature !== "prompt caching" || model.price.cache_read !== undefined;
};

export type Choice = { model: string } | { notOffered: string };

/** The family's first chat model (in catalogue order) that offers the feature, or why there is none. */
export function modelFor(family: Family, feature: Feature): Choice {
  const { vendor } = families.find((entry) => entry.family === family)!;
  const chat = catalogue
    .list(conformanceGroup)
    .filter((model) => model.vendor === vendor && model.endpoints.includes("/v1/chat/completions"));
  const model = chat.find((candidate) => offers(candidate, feature));
  if (model) return { model: model.id };
  const what = feature === "prompt caching" ? "a cache-read price" : `the \`${needs[feature]}\` capability`;
  return { notOffered: `no ${family} chat model in the catalogue has ${what}` };
}
