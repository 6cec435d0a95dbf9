import { describe, expect, it } from "vitest";
import { describeForm, parseMultipart } from "./multipart.js";

async function encode(form: FormData) {
  const request = new Request("http://x/", { method: "POST", body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get("content-type")! };
}

describe("parseMultipart", () => {
  it("reads fields, repeated fields and binary files as FormData encodes them", async () => {
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("timestamp_granularities[]", "word");
    form.append("timestamp_granularities[]", "segment");
    const bytes = Buffer.from([0, 255, 13, 10, 45, 45, 1]);
    form.append("file", new Blob([bytes], { type: "audio/wav" }), "a.wav");
    const { body, contentType } = await encode(form);
    const parsed = parseMultipart(body, contentType)!;
    expect(parsed.fields.get("model")).toEqual(["whisper-1"]);
    expect(parsed.fields.get("timestamp_granularities[]")).toEqual(["word", "segment"]);
    const file = parsed.files.get("file")![0]!;
    expect(file).toMatchObject({ filename: "a.wav", contentType: "audio/wav" });
    expect(file.data.equals(bytes)).toBe(true);
    expect(describeForm(parsed)).toMatchObject({ model: "whisper-1", file: [{ filename: "a.wav", bytes: 7 }] });
  });

  it("refuses bodies that are not multipart or are cut short", async () => {
    expect(parseMultipart(Buffer.from("{}"), "application/json")).toBeUndefined();
    const form = new FormData();
    form.append("model", "dall-e-2");
    const { body, contentType } = await encode(form);
    expect(parseMultipart(body.subarray(0, body.length - 10), contentType)).toBeUndefined();
  });
});
