import { type SimulatedRequest, simulatorRequests, type TestStack, usageRecordsOf } from "@gateway/stack";
import { expect } from "vitest";
import { solidPng } from "../media-fixtures.js";
import type { Feature } from "./cells.js";

// What every ingress's probes share: the running stack, a key, the vendor requests the simulator
// saw, and the usage record ledger billed.

export interface ProbeContext {
  stack: TestStack;
  apiKey: string;
}

/** One feature tried on one model; `marker` is unique to the cell and goes into the prompt. */
export type Probe = (context: ProbeContext, model: string, marker: string) => Promise<void>;

export interface IngressProbes {
  probes: Record<Feature, Probe>;
  /** Why the ingress format cannot carry a feature to a vendor, when it cannot. */
  cannotCarry?: (vendor: string, feature: Feature) => string | undefined;
}

/** The vendor requests whose body mentions `marker`. */
export async function upstreamWith(context: ProbeContext, marker: string): Promise<SimulatedRequest[]> {
  const requests = await simulatorRequests(context.stack.simulatorUrl);
  return requests.filter((request) => JSON.stringify(request.body ?? {}).includes(marker));
}

/** The one vendor request of a cell. */
export async function onlyUpstream(context: ProbeContext, marker: string): Promise<Record<string, unknown>> {
  const requests = await upstreamWith(context, marker);
  expect(requests).toHaveLength(1);
  return requests[0]!.body!;
}

export interface BilledUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  reasoning_tokens: number;
  estimated: boolean;
}

/** The request's usage record once ledger stored it; exactly one, so billed once. */
export async function billedOnce(context: ProbeContext, requestId: string): Promise<BilledUsage> {
  expect(requestId).not.toBe("");
  for (let attempt = 0; attempt < 100; attempt++) {
    const records = await usageRecordsOf(context.stack.databaseUrl, requestId);
    if (records.length > 0) {
      expect(records).toHaveLength(1);
      return records[0] as unknown as BilledUsage;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no usage record for ${requestId}`);
}

/**
 * The bill matches the usage the client was shown, taken from the vendor's own counts (reasoning
 * tokens where the ingress's usage shows them: Anthropic's does not).
 */
export function expectBilledAsShown(
  billed: BilledUsage,
  shown: Omit<BilledUsage, "estimated" | "reasoning_tokens"> & { reasoning_tokens?: number },
): void {
  expect(billed).toMatchObject({ ...shown, estimated: false });
}

// Varied words, so the prefix is not one repeated token; about 5,000 tokens by the vendors' counts,
// above every vendor's caching minimum (Anthropic's largest is 4,096).
const words = "river lantern copper meadow orbit velvet harbor quartz summit ember willow canyon".split(" ");
export const longPrefix = Array.from({ length: 3_000 }, (_, index) => words[(index * 7) % words.length]).join(" ");

/** A small PNG (base64), the image every vision probe sends. */
export const pngBase64 = solidPng([40, 120, 200], 16, 16).toString("base64");

export const weatherParameters = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
};
export const timeParameters = {
  type: "object",
  properties: { zone: { type: "string" } },
  required: ["zone"],
};

export const answerSchema = {
  type: "object",
  properties: { city: { type: "string" }, celsius: { type: "number" } },
  required: ["city", "celsius"],
  additionalProperties: false,
};

/** A structured answer parses and has the schema's required fields. */
export function expectFitsSchema(text: string): void {
  const value = JSON.parse(text) as Record<string, unknown>;
  expect(typeof value.city).toBe("string");
  expect(typeof value.celsius).toBe("number");
}

/** The image reached the vendor in the vendor's own form. */
export function expectImageSent(vendor: string, body: Record<string, unknown>): void {
  const form = { anthropic: '"type":"image"', google: '"inlineData"' }[vendor] ?? '"image_url"';
  expect(JSON.stringify(body)).toContain(form);
}

/** The schema reached the vendor (in whatever field the vendor reads it from). */
export const expectSchemaSent = (body: Record<string, unknown>) => expect(JSON.stringify(body)).toContain("celsius");

/** Every event of a stream, once it has ended. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}
