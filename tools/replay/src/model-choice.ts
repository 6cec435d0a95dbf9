import { join } from "node:path";
import { Catalogue, type CatalogueModel } from "@gateway/catalogue";
import { repoRoot } from "@gateway/stack";
import type { Expected } from "./expected.js";
import type { Family, Protocol, Recording } from "./recordings.js";

// Which catalogue model a recording is replayed as: the model it was recorded from when the
// catalogue serves it (by id or alias), else the family's model closest in name that offers
// what the answer needs, so a recording of a retired or preview model still runs.

/** Accounts of this group may call every model. */
export const replayGroup = "premium";

export const catalogue = Catalogue.fromFile(join(repoRoot, "infra/catalogue/models.yaml"), {
  env: {},
  // Only so that every model has a channel: nothing is called through this copy.
  simulatorUrl: "http://127.0.0.1:1",
});

export const vendorOfFamily: Record<Family, string> = {
  openai: "openai",
  anthropic: "anthropic",
  gemini: "google",
  xai: "xai",
  deepseek: "deepseek",
  qwen: "alibaba",
  kimi: "moonshot",
};

const endpointOf: Record<Protocol, string> = {
  "openai-chat": "/v1/chat/completions",
  "anthropic-messages": "/v1/chat/completions",
  "gemini-generate": "/v1/chat/completions",
  "openai-responses": "/v1/chat/completions",
  "openai-embeddings": "/v1/embeddings",
  "gemini-embed": "/v1/embeddings",
  "openai-images": "/v1/images/generations",
  "openai-transcriptions": "/v1/audio/transcriptions",
  "dashscope-image-synthesis": "/v1/images/generations",
};

const commonPrefix = (a: string, b: string) => {
  let length = 0;
  while (length < a.length && a[length] === b[length]) length += 1;
  return length;
};

function offers(model: CatalogueModel, expected: Expected): boolean {
  if (expected.kind === "chat") {
    if (expected.toolCalls.length > 0 && !model.capabilities.includes("tools")) return false;
    if (expected.reasoning !== "" && !model.capabilities.includes("reasoning")) return false;
  }
  if (expected.kind === "images") return (model.images?.max_n ?? 1) >= expected.images.length;
  return true;
}

export function modelFor(recording: Recording, expected: Expected): CatalogueModel {
  const candidates = catalogue
    .list(replayGroup)
    .filter(
      (model) =>
        model.vendor === vendorOfFamily[recording.family] && model.endpoints.includes(endpointOf[recording.protocol]),
    );
  const recorded = recording.model ?? "";
  // A retired id resolves to its successor (deepseek-chat to deepseek-v4-flash).
  const servedAs = catalogue.find(recorded, replayGroup)?.id;
  const exact = candidates.find((model) => model.id === servedAs);
  if (exact && offers(exact, expected)) return exact;
  const fitting = candidates.filter((model) => offers(model, expected));
  const pool = fitting.length > 0 ? fitting : candidates;
  const best = pool.reduce<CatalogueModel | undefined>(
    (chosen, model) =>
      !chosen || commonPrefix(model.id, recorded) > commonPrefix(chosen.id, recorded) ? model : chosen,
    undefined,
  );
  if (!best) throw new Error(`${recording.id}: no ${recording.family} model serves ${endpointOf[recording.protocol]}`);
  return best;
}
