import { Catalogue } from "@gateway/catalogue";
import { GatewayError } from "@gateway/platform";
import type { EditImagesRequest, GenerateImagesRequest } from "@gateway/proto/router/v1/images";
import { temporaryCatalogueServing } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import { solidPng } from "../../../simulator/src/gemini/images.js";
import { checkEdit, checkGeneration } from "./image-rules.js";

// dall-e's rules (url answers, styles, square edits) and gpt-image-1's per-image prices, as they
// were served: the shipped catalogue retires them.
const serving = temporaryCatalogueServing(["dall-e-3", "dall-e-2", "gpt-image-1"]);
const catalogue = Catalogue.fromFile(serving.path, { env: {}, simulatorUrl: "http://127.0.0.1:8090" });
serving.remove();
const model = (id: string) => catalogue.find(id, "premium")!;
const generation = (fields: Partial<GenerateImagesRequest>): GenerateImagesRequest => ({
  caller: undefined,
  model: "",
  prompt: "a cat",
  ...fields,
});
const file = (bytes: Buffer, filename = "a.png") => ({ filename, contentType: "image/png", data: bytes });
const edit = (fields: Partial<EditImagesRequest>): EditImagesRequest => ({
  caller: undefined,
  model: "",
  prompt: "a hat",
  images: [file(solidPng([1, 2, 3], 64, 64))],
  ...fields,
});

function refusal(check: () => unknown) {
  try {
    check();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const { httpStatus, param } = error as GatewayError;
    return { status: httpStatus, param };
  }
  throw new Error("expected a refusal");
}

describe("image generation rules", () => {
  it("resolves defaults and prices by size and quality ('auto' at the default quality)", () => {
    expect(checkGeneration(model("dall-e-3"), generation({}))).toEqual({
      n: 1,
      size: "1024x1024",
      quality: undefined,
      priceMicros: 288_000,
    });
    expect(checkGeneration(model("dall-e-3"), generation({ size: "1024x1792", quality: "hd" })).priceMicros).toBe(
      864_000,
    );
    expect(checkGeneration(model("gpt-image-1"), generation({ quality: "auto" })).priceMicros).toBe(302_400);
    expect(checkGeneration(model("dall-e-2"), generation({ n: 10, size: "512x512" }))).toMatchObject({
      n: 10,
      priceMicros: 129_600,
    });
  });

  it("refuses each rule with a 400 naming the parameter", () => {
    expect(refusal(() => checkGeneration(model("dall-e-3"), generation({ size: "1536x1024" })))).toEqual({
      status: 400,
      param: "size",
    });
    expect(refusal(() => checkGeneration(model("gpt-image-1"), generation({ size: "1792x1024" })))).toEqual({
      status: 400,
      param: "size",
    });
    expect(refusal(() => checkGeneration(model("dall-e-3"), generation({ n: 2 })))).toEqual({
      status: 400,
      param: "n",
    });
    expect(refusal(() => checkGeneration(model("dall-e-2"), generation({ quality: "hd" })))).toEqual({
      status: 400,
      param: "quality",
    });
    expect(refusal(() => checkGeneration(model("dall-e-3"), generation({ style: "bold" })))).toEqual({
      status: 400,
      param: "style",
    });
    expect(refusal(() => checkGeneration(model("gpt-image-1"), generation({ style: "vivid" })))).toEqual({
      status: 400,
      param: "style",
    });
    expect(refusal(() => checkGeneration(model("gpt-image-1"), generation({ responseFormat: "b64_json" })))).toEqual({
      status: 400,
      param: "response_format",
    });
    expect(refusal(() => checkGeneration(model("dall-e-3"), generation({ prompt: "x".repeat(4001) })))).toEqual({
      status: 400,
      param: "prompt",
    });
    expect(checkGeneration(model("gpt-image-1"), generation({ prompt: "x".repeat(4001) })).n).toBe(1);
  });
});

describe("image edit rules", () => {
  it("accepts a square PNG with a matching mask for dall-e-2, and JPEG or WebP only where allowed", () => {
    const mask = file(solidPng([0, 0, 0], 64, 64), "mask.png");
    expect(checkEdit(model("dall-e-2"), edit({ mask, size: "256x256" })).priceMicros).toBe(115_200);
    const jpeg = file(Buffer.from([0xff, 0xd8, 0xff, 0xc0, 0, 17, 8, 0, 32, 0, 48, 3, 0, 0, 0, 0, 0, 0]), "a.jpg");
    expect(checkEdit(model("gpt-image-1"), edit({ images: [jpeg, jpeg] })).n).toBe(1);
    expect(refusal(() => checkEdit(model("dall-e-2"), edit({ images: [jpeg] })))).toEqual({
      status: 400,
      param: "image",
    });
  });

  it("refuses non-square dall-e-2 images, odd masks, too many or too large images", () => {
    const wide = file(solidPng([1, 1, 1], 64, 32));
    expect(refusal(() => checkEdit(model("dall-e-2"), edit({ images: [wide] })))).toEqual({
      status: 400,
      param: "image",
    });
    expect(checkEdit(model("gpt-image-1"), edit({ images: [wide] })).n).toBe(1);
    const smallMask = file(solidPng([0, 0, 0], 32, 32), "mask.png");
    expect(refusal(() => checkEdit(model("dall-e-2"), edit({ mask: smallMask })))).toEqual({
      status: 400,
      param: "mask",
    });
    const square = edit({}).images[0]!;
    expect(refusal(() => checkEdit(model("dall-e-2"), edit({ images: [square, square] })))).toEqual({
      status: 400,
      param: "image",
    });
    const big = file(Buffer.concat([solidPng([1, 1, 1], 64, 64), Buffer.alloc(4 * 1024 * 1024)]));
    expect(refusal(() => checkEdit(model("dall-e-2"), edit({ images: [big] })))).toEqual({
      status: 413,
      param: "image",
    });
    expect(refusal(() => checkEdit(model("dall-e-3"), edit({})))).toEqual({ status: 400, param: "model" });
  });
});
