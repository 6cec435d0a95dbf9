import { Catalogue } from "@gateway/catalogue";
import { temporaryCatalogueServing } from "@gateway/stack";
import { describe, expect, it } from "vitest";
import { toOpenAIEdit, toOpenAIGeneration, toOpenAITranscription } from "./openai-media-wire.js";

// dall-e's rules (url answers, styles, square edits) and gpt-image-1's per-image prices, as they
// were served: the shipped catalogue retires them.
const serving = temporaryCatalogueServing(["dall-e-3", "dall-e-2", "gpt-image-1"]);
const catalogue = Catalogue.fromFile(serving.path, { env: {}, simulatorUrl: "http://127.0.0.1:8090" });
serving.remove();
const model = (id: string) => catalogue.find(id, "premium")!;
const file = (filename: string) => ({ filename, contentType: "image/png", data: Buffer.from("bytes") });

describe("OpenAI media requests", () => {
  it("always asks dall-e for base64 and never sends response_format to GPT image models", () => {
    expect(
      toOpenAIGeneration({ caller: undefined, model: "x", prompt: "p", responseFormat: "url" }, model("dall-e-3")),
    ).toMatchObject({
      model: "dall-e-3",
      response_format: "b64_json",
    });
    expect(
      toOpenAIGeneration({ caller: undefined, model: "x", prompt: "p" }, model("gpt-image-1")).response_format,
    ).toBeUndefined();
  });

  it("sends one image as image, several as repeated image[], and leaves unset fields out", () => {
    const single = toOpenAIEdit(
      { caller: undefined, model: "x", prompt: "p", images: [file("a.png")], mask: file("m.png") },
      model("dall-e-2"),
    );
    expect([...single.keys()]).toEqual(["model", "prompt", "response_format", "image", "mask"]);
    const several = toOpenAIEdit(
      { caller: undefined, model: "x", prompt: "p", images: [file("a.png"), file("b.png")], n: 2 },
      model("gpt-image-1"),
    );
    expect(several.getAll("image[]").map((entry) => (entry as File).name)).toEqual(["a.png", "b.png"]);
    expect(several.get("n")).toBe("2");
  });

  it("repeats timestamp_granularities[] and writes numbers as text", () => {
    const form = toOpenAITranscription(
      {
        caller: undefined,
        model: "x",
        file: { filename: "a.wav", contentType: "audio/wav", data: Buffer.from("RIFF") },
        responseFormat: "verbose_json",
        temperature: 0.5,
        timestampGranularities: ["word", "segment"],
      },
      model("whisper-1"),
    );
    expect(form.getAll("timestamp_granularities[]")).toEqual(["word", "segment"]);
    expect(form.get("temperature")).toBe("0.5");
    expect((form.get("file") as File).name).toBe("a.wav");
  });
});
