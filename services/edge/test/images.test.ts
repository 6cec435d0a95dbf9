import {
  eventually,
  simulatorRequests,
  startTestStack,
  type TestStack,
  temporaryCatalogueServing,
  usageRecordOf,
} from "@gateway/stack";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billedRows, bulkyPng, imageTokenCost, multiplierOf, pngSize, solidPng, unitCost } from "./media-fixtures.js";
import { shippedModel, shippedPrice } from "./shipped-catalogue.js";

let stack: TestStack;
let client: OpenAI;
let multiplier: number;
// OpenAI's per-image rules (dall-e's url answers, revised prompts, styles and square edits,
// gpt-image-1's prices by size and quality) are tested on those models as they were served: the
// shipped catalogue retires them (retired-models.test.ts checks their 404s).
const catalogue = temporaryCatalogueServing(["dall-e-3", "dall-e-2", "gpt-image-1"]);

const billed = (requestId: string) => eventually(async () => (await billedRows(stack.databaseUrl, requestId))[0]);
const megabyte = 1024 * 1024;

/** Asks and expects a 400 (or the given status) naming the parameter; returns the error. */
async function refused(call: Promise<unknown>, param: string, status = 400) {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const apiError = error as InstanceType<typeof OpenAI.APIError>;
  expect(apiError.status).toBe(status);
  expect(apiError.param).toBe(param);
  expect(apiError.type).toBe("invalid_request_error");
  return apiError;
}

// Imagen's parameter, which the openai SDK passes through as it is.
const withRatio = (aspectRatio: string) => ({ aspect_ratio: aspectRatio }) as unknown as Record<string, never>;

/** The images requests (OpenAI's, Imagen's :predict) whose prompt carries the marker that reached the simulator. */
async function upstreamWith(marker: string) {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests.filter(
    (request) =>
      (request.path.startsWith("/v1/images") || request.path.endsWith(":predict")) &&
      JSON.stringify(request.body).includes(marker),
  );
}

beforeAll(async () => {
  stack = await startTestStack({ env: { CATALOGUE_PATH: catalogue.path } });
  const account = await stack.createAccount({ group: "premium" });
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey: account.api_key, maxRetries: 0 });
  multiplier = await multiplierOf(stack.databaseUrl, "premium");
});
afterAll(async () => {
  await stack?.teardown();
  catalogue.remove();
});

describe("POST /v1/images/generations", () => {
  it("answers b64_json with a PNG of the requested size and dall-e-3's revised prompt, billed per image", async () => {
    const { data, response } = await client.images
      .generate({
        model: "dall-e-3",
        prompt: "a red lighthouse",
        size: "1792x1024",
        quality: "hd",
        response_format: "b64_json",
      })
      .withResponse();
    expect(data.data).toHaveLength(1);
    const image = data.data![0]!;
    expect(image.url).toBeUndefined();
    expect(pngSize(Buffer.from(image.b64_json!, "base64"))).toEqual({ width: 1792, height: 1024 });
    expect(image.revised_prompt).toContain("a red lighthouse");
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      endpoint: "/v1/images/generations",
      model: "dall-e-3",
      billed_units: 1,
      unit: "image",
    });
    expect(Number(row.cost_micros)).toBe(unitCost(1, 864_000, multiplier));
  });

  it("answers url by default with signed gateway URLs that serve the PNGs, and bills every image", async () => {
    const { data, response } = await client.images
      .generate({ model: "dall-e-2", prompt: "two blue boats", n: 2, size: "256x256" })
      .withResponse();
    expect(data.data).toHaveLength(2);
    for (const image of data.data!) {
      expect(image.b64_json).toBeUndefined();
      expect(image.url!.startsWith(stack.baseUrl.replace(/\/v1$/, "/files/generated/"))).toBe(true);
      const download = await fetch(image.url!);
      expect(download.status).toBe(200);
      expect(download.headers.get("content-type")).toBe("image/png");
      expect(pngSize(Buffer.from(await download.arrayBuffer()))).toEqual({ width: 256, height: 256 });
    }
    // The vendor was asked for base64, which the gateway stores itself.
    const [upstream] = await upstreamWith("two blue boats");
    expect(upstream!.body).toMatchObject({ model: "dall-e-2", n: 2, size: "256x256", response_format: "b64_json" });
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ billed_units: 2, unit: "image" });
    expect(Number(row.cost_micros)).toBe(unitCost(2, 115_200, multiplier));
  });

  it("refuses a URL whose signature or expiry was altered, and unknown files", async () => {
    const answer = await client.images.generate({ model: "dall-e-2", prompt: "a green field", size: "256x256" });
    const url = new URL(answer.data![0]!.url!);
    const longer = new URL(url);
    longer.searchParams.set("expires", String(Number(url.searchParams.get("expires")) + 3600));
    expect((await fetch(longer)).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = "";
    const refusedAnswer = await fetch(unsigned);
    expect(refusedAnswer.status).toBe(403);
    expect(((await refusedAnswer.json()) as { error: { code: string } }).error.code).toBe("invalid_signature");
    const traversal = new URL(url);
    traversal.pathname = "/files/generated/..%2Fsecret.png";
    expect((await fetch(traversal)).status).toBe(404);
  });

  it("answers gpt-image-1 in base64 and prices by size and quality", async () => {
    const { data, response } = await client.images
      .generate({ model: "gpt-image-1", prompt: "a purple owl", size: "1536x1024", quality: "high" })
      .withResponse();
    expect(pngSize(Buffer.from(data.data![0]!.b64_json!, "base64"))).toEqual({ width: 1536, height: 1024 });
    expect(data.data![0]!.revised_prompt).toBeUndefined();
    const row = await billed(response.headers.get("x-request-id")!);
    expect(Number(row.cost_micros)).toBe(unitCost(1, 1_800_000, multiplier));
  });

  it("refuses what the model cannot do, naming the parameter, before anything reaches the vendor", async () => {
    const marker = `never-sent-${Date.now()}`;
    const prompt = `a cat ${marker}`;
    await refused(client.images.generate({ model: "dall-e-3", prompt, size: "256x256" }), "size");
    await refused(client.images.generate({ model: "dall-e-3", prompt, n: 2 }), "n");
    await refused(client.images.generate({ model: "dall-e-3", prompt, quality: "ultra" as "hd" }), "quality");
    await refused(client.images.generate({ model: "dall-e-3", prompt, style: "bold" as "vivid" }), "style");
    await refused(client.images.generate({ model: "dall-e-2", prompt, style: "vivid" }), "style");
    await refused(client.images.generate({ model: "dall-e-2", prompt: `${marker} ${"x".repeat(1000)}` }), "prompt");
    await refused(client.images.generate({ model: "gpt-image-1", prompt, response_format: "url" }), "response_format");
    await refused(client.images.generate({ model: "dall-e-2", prompt, n: 11 }), "n");
    await refused(client.images.generate({ model: "dall-e-2", prompt, size: "big" as "256x256" }), "size");
    await refused(client.images.generate({ model: "dall-e-2", prompt: "" }), "prompt");
    const wrongEndpoint = await refused(client.images.generate({ model: "gpt-4o-mini", prompt }), "model");
    expect(wrongEndpoint.message).toContain("gpt-4o-mini");
    expect(await upstreamWith(marker)).toEqual([]);
  });
});

describe("GPT Image 2.6, billed by token", () => {
  // Text input, image input and image output per million tokens, as the catalogue prices them.
  const pricesOf = (id: string) => {
    const price = shippedPrice(id, "premium");
    return {
      text: price.input,
      imageInput: shippedModel(id, "premium").images!.image_input_price!,
      output: price.output,
    };
  };

  it("bills a gpt-image-2.6-sunburst generation exactly from the usage the vendor answers with", async () => {
    const { data, response } = await client.images
      .generate({
        model: "gpt-image-2.6-sunburst",
        prompt: "a lighthouse at dusk, token billed",
        n: 2,
        size: "1536x1024",
        quality: "xhigh" as "high",
      })
      .withResponse();
    expect(data.data).toHaveLength(2);
    expect(pngSize(Buffer.from(data.data![0]!.b64_json!, "base64"))).toEqual({ width: 1536, height: 1024 });
    const usage = data.usage!;
    expect(usage.input_tokens_details.image_tokens).toBe(0);
    const [upstream] = await upstreamWith("token billed");
    expect(upstream!.body).toMatchObject({ model: "gpt-image-2.6-sunburst", n: 2, quality: "xhigh" });
    const row = await usageRecordOf(stack.databaseUrl, response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      model: "gpt-image-2.6-sunburst",
      prompt_tokens: usage.input_tokens,
      completion_tokens: usage.output_tokens,
      billed_units: 0,
      estimated: false,
    });
    const tokens = { text: usage.input_tokens, imageInput: 0, output: usage.output_tokens };
    expect(Number(row.cost_micros)).toBe(imageTokenCost(tokens, pricesOf("gpt-image-2.6-sunburst"), multiplier));
  });

  it("bills a gpt-image-2.6-flare edit's input images at the image input price", async () => {
    const images = [
      await toFile(solidPng([9, 9, 9], 32, 32), "one.png", { type: "image/png" }),
      await toFile(solidPng([1, 2, 3], 32, 48), "two.png", { type: "image/png" }),
    ];
    const { data, response } = await client.images
      .edit({ model: "gpt-image-2.6-flare", image: images, prompt: "merge the two, token billed edit" })
      .withResponse();
    const usage = data.usage!;
    const imageInput = usage.input_tokens_details.image_tokens;
    expect(imageInput).toBeGreaterThan(0);
    const row = await usageRecordOf(stack.databaseUrl, response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ prompt_tokens: usage.input_tokens, completion_tokens: usage.output_tokens });
    const tokens = { text: usage.input_tokens - imageInput, imageInput, output: usage.output_tokens };
    expect(Number(row.cost_micros)).toBe(imageTokenCost(tokens, pricesOf("gpt-image-2.6-flare"), multiplier));
  });
});

describe("POST /v1/images/edits", () => {
  const square = () => toFile(solidPng([200, 10, 10], 64, 64), "photo.png", { type: "image/png" });

  it("edits a square PNG with dall-e-2 and serves the result at a URL, at the requested size", async () => {
    const mask = await toFile(solidPng([0, 0, 0], 64, 64), "mask.png", { type: "image/png" });
    const { data, response } = await client.images
      .edit({ model: "dall-e-2", image: await square(), mask, prompt: "add a hat", size: "512x512" })
      .withResponse();
    const download = await fetch(data.data![0]!.url!);
    expect(pngSize(Buffer.from(await download.arrayBuffer()))).toEqual({ width: 512, height: 512 });
    const [upstream] = await upstreamWith("add a hat");
    expect(upstream!.body).toMatchObject({
      model: "dall-e-2",
      response_format: "b64_json",
      image: [{ filename: "photo.png" }],
      mask: [{ filename: "mask.png" }],
    });
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ endpoint: "/v1/images/edits", billed_units: 1, unit: "image" });
    expect(Number(row.cost_micros)).toBe(unitCost(1, 129_600, multiplier));
  });

  it("passes several images to gpt-image-1 as image[] and answers b64_json", async () => {
    const second = await toFile(solidPng([1, 2, 3], 32, 48), "second.png", { type: "image/png" });
    const answer = await client.images.edit({
      model: "gpt-image-1",
      image: [await square(), second],
      prompt: "combine both pictures",
      size: "1024x1536",
    });
    expect(pngSize(Buffer.from(answer.data![0]!.b64_json!, "base64"))).toEqual({ width: 1024, height: 1536 });
    const [upstream] = await upstreamWith("combine both pictures");
    expect((upstream!.body as Record<string, unknown>)["image[]"]).toHaveLength(2);
  });

  it("refuses models without edit support, wrong types, shapes and mask sizes with a 400 naming the parameter", async () => {
    const marker = `edit-never-sent-${Date.now()}`;
    const noEdits = await refused(
      client.images.edit({ model: "dall-e-3", image: await square(), prompt: marker }),
      "model",
    );
    expect(noEdits.message).toContain("dall-e-3");
    const wide = await toFile(solidPng([9, 9, 9], 64, 32), "wide.png", { type: "image/png" });
    const notSquare = await refused(client.images.edit({ model: "dall-e-2", image: wide, prompt: marker }), "image");
    expect(notSquare.message).toContain("square");
    const jpeg = await toFile(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1]), "photo.jpg");
    await refused(client.images.edit({ model: "dall-e-2", image: jpeg, prompt: marker }), "image");
    const smallMask = await toFile(solidPng([0, 0, 0], 32, 32), "mask.png", { type: "image/png" });
    const mismatch = await refused(
      client.images.edit({ model: "dall-e-2", image: await square(), mask: smallMask, prompt: marker }),
      "mask",
    );
    expect(mismatch.message).toContain("32x32");
    await refused(
      client.images.edit({ model: "dall-e-2", image: await square(), prompt: marker, size: "1792x1024" }),
      "size",
    );
    expect(await upstreamWith(marker)).toEqual([]);
  });

  it("answers 413 for an image over the model's limit and for one over any model's limit", async () => {
    const overDallE2 = await toFile(bulkyPng(64, 64, 5 * megabyte), "big.png", { type: "image/png" });
    await refused(client.images.edit({ model: "dall-e-2", image: overDallE2, prompt: "too big" }), "image", 413);
    const overAll = await toFile(bulkyPng(64, 64, 51 * megabyte), "huge.png", { type: "image/png" });
    const error = await refused(
      client.images.edit({ model: "gpt-image-1", image: overAll, prompt: "too big" }),
      "image",
      413,
    );
    expect(error.message).toContain("50 MB");
  });
});

// Image models that take an aspect ratio (Imagen 4 on the Gemini API): the request names the ratio or
// the size it stands for, checked against the catalogue before any vendor call; Imagen's :predict is
// called with the ratio and the answer is OpenAI's images shape, billed per image.
describe("Imagen 4 through /v1/images/generations", () => {
  it("draws the aspect ratio asked for, as OpenAI's images shape, billed per image", async () => {
    const { data, response } = await client.images
      .generate({
        model: "imagen-4.0-generate-001",
        prompt: "a lighthouse at dusk ratio-16-9",
        n: 2,
        response_format: "b64_json",
        ...withRatio("16:9"),
      })
      .withResponse();
    expect(data.data).toHaveLength(2);
    for (const image of data.data!) {
      expect(pngSize(Buffer.from(image.b64_json!, "base64"))).toEqual({ width: 1408, height: 768 });
    }
    expect(data.created).toBeGreaterThan(0);
    const [sent] = await upstreamWith("ratio-16-9");
    expect(sent?.path).toBe("/v1beta/models/imagen-4.0-generate-001:predict");
    expect(sent?.body).toEqual({
      instances: [{ prompt: "a lighthouse at dusk ratio-16-9" }],
      parameters: { sampleCount: 2, aspectRatio: "16:9" },
    });
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ model: "imagen-4.0-generate-001", billed_units: 2, unit: "image" });
    expect(Number(row.cost_micros)).toBe(unitCost(2, 288_000, multiplier));
  });

  it("calls the vendor with the ratio a size stands for, and answers a signed URL by default", async () => {
    const answer = await client.images.generate({
      model: "imagen-4.0-fast-generate-001",
      prompt: "a tall tower ratio-by-size",
      size: "768x1408" as "1024x1024",
    });
    const download = await fetch(answer.data![0]!.url!);
    expect(download.status).toBe(200);
    expect(pngSize(Buffer.from(await download.arrayBuffer()))).toEqual({ width: 768, height: 1408 });
    const [sent] = await upstreamWith("ratio-by-size");
    expect(sent?.body).toMatchObject({ parameters: { sampleCount: 1, aspectRatio: "9:16" } });
  });

  it("refuses, before any vendor call, a ratio or size the model lacks, both at odds, or more images than it makes", async () => {
    const model = "imagen-4.0-ultra-generate-001";
    await refused(
      client.images.generate({ model, prompt: "wide ratio-refused", ...withRatio("21:9") }),
      "aspect_ratio",
    );
    await refused(client.images.generate({ model, prompt: "odd ratio-refused", size: "1024x1792" }), "size");
    await refused(
      client.images.generate({ model, prompt: "both ratio-refused", size: "1024x1024", ...withRatio("16:9") }),
      "size",
    );
    await refused(client.images.generate({ model, prompt: "many ratio-refused", n: 5 }), "n");
    await refused(
      client.images.generate({ model: "dall-e-3", prompt: "dalle ratio-refused", ...withRatio("16:9") }),
      "aspect_ratio",
    );
    expect(await upstreamWith("ratio-refused")).toEqual([]);
  });
});

describe("Grok Imagine through /v1/images/generations", () => {
  it("calls xAI with the aspect ratio and no size, and bills each image", async () => {
    const { data, response } = await client.images
      .generate({ model: "grok-imagine-image", prompt: "a wide harbour grok-ratio", n: 2, ...withRatio("16:9") })
      .withResponse();
    expect(data.data).toHaveLength(2);
    const download = await fetch(data.data![0]!.url!);
    expect(pngSize(Buffer.from(await download.arrayBuffer()))).toEqual({ width: 1024, height: 576 });
    const [sent] = await upstreamWith("grok-ratio");
    expect(sent?.body).toEqual({
      model: "grok-imagine-image",
      prompt: "a wide harbour grok-ratio",
      n: 2,
      aspect_ratio: "16:9",
      response_format: "b64_json",
    });
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ model: "grok-imagine-image", billed_units: 2, unit: "image" });
    expect(Number(row.cost_micros)).toBe(unitCost(2, 144_000, multiplier));
  });

  it("refuses a size, as xAI does, and a ratio it lacks, before any vendor call", async () => {
    const model = "grok-imagine-image";
    await refused(client.images.generate({ model, prompt: "sized grok-refused", size: "1024x1024" }), "size");
    await refused(client.images.generate({ model, prompt: "odd grok-refused", ...withRatio("5:4") }), "aspect_ratio");
    expect(await upstreamWith("grok-refused")).toEqual([]);
  });
});
