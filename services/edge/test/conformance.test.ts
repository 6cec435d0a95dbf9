import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll, describe, it } from "vitest";
import { anthropicMessagesProbes } from "./conformance/anthropic-messages-probes.js";
import {
  type Family,
  type Feature,
  families,
  features,
  type Ingress,
  ingresses,
  modelFor,
} from "./conformance/cells.js";
import { geminiProbes } from "./conformance/gemini-probes.js";
import { cellKey, type Outcome, renderMatrix } from "./conformance/matrix-doc.js";
import { openAIChatProbes } from "./conformance/openai-chat-probes.js";
import type { IngressProbes, ProbeContext } from "./conformance/probe-context.js";
import { responsesProbes } from "./conformance/responses-probes.js";

// Every ingress format × vendor family × feature through the running stack; the outcomes are
// written to docs/conformance.md, so the published matrix is always the last run's.

let stack: TestStack;
const context = {} as ProbeContext;
const outcomes = new Map<string, Outcome>();

const vendorOfFamily = (family: Family) => families.find((entry) => entry.family === family)!.vendor;
const vendorByModel = new Map<string, string>();
for (const { family, vendor } of families) {
  for (const feature of features) {
    const choice = modelFor(family, feature);
    if ("model" in choice) vendorByModel.set(choice.model, vendor);
  }
}
const vendorOfModel = (model: string) => vendorByModel.get(model)!;

const probesOf: Record<Ingress, IngressProbes> = {
  "OpenAI chat": openAIChatProbes(vendorOfModel),
  "OpenAI Responses": responsesProbes(vendorOfModel),
  "Anthropic Messages": anthropicMessagesProbes(vendorOfModel),
  Gemini: geminiProbes(vendorOfModel),
};

const cells = families.flatMap(({ family }) => features.map((feature) => ({ family, feature })));
const slug = (text: string) => text.toLowerCase().replaceAll(/[^a-z0-9]+/g, "-");

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium", creditYuan: 10_000 });
  Object.assign(context, { stack, apiKey: account.api_key });
});

afterAll(async () => {
  // Only a run of every cell is published; a filtered run (-t) leaves the document alone.
  if (outcomes.size === ingresses.length * cells.length) {
    const date = new Date().toISOString().slice(0, 10);
    writeFileSync(join(repoRoot, "docs/conformance.md"), renderMatrix(outcomes, modelFor, date));
  }
  await stack?.teardown();
});

async function runCell(ingress: Ingress, family: Family, feature: Feature) {
  const key = cellKey(ingress, family, feature);
  const choice = modelFor(family, feature);
  const reason =
    "notOffered" in choice ? choice.notOffered : probesOf[ingress].cannotCarry?.(vendorOfFamily(family), feature);
  if (reason) {
    outcomes.set(key, { outcome: "not offered", reason });
    return;
  }
  const marker = `conformance ${slug(ingress)} ${slug(family)} ${slug(feature)} ${randomUUID().slice(0, 8)}`;
  try {
    await probesOf[ingress].probes[feature](context, (choice as { model: string }).model, marker);
    outcomes.set(key, { outcome: "pass" });
  } catch (error) {
    outcomes.set(key, { outcome: "fail" });
    throw error;
  }
}

describe.each(ingresses)("%s", (ingress) => {
  it.concurrent.each(cells)("$family: $feature", ({ family, feature }) => runCell(ingress, family, feature), 60_000);
});
