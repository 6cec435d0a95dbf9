import { describe, expect, it } from "vitest";
import { transcriptionFieldsSchema } from "./transcription-request-schema.js";
import { validateBody } from "./validate-body.js";

const parse = (fields: Record<string, unknown>) =>
  validateBody(transcriptionFieldsSchema, { model: "whisper-1", ...fields });
const paramOf = (fields: Record<string, unknown>) => {
  try {
    parse(fields);
  } catch (error) {
    return (error as { param: string }).param;
  }
  return undefined;
};

describe("transcription form fields", () => {
  it("reads text fields into numbers and one or many granularities into a list", () => {
    expect(
      parse({ temperature: "0.3", response_format: "verbose_json", "timestamp_granularities[]": "word" }),
    ).toMatchObject({
      temperature: 0.3,
      "timestamp_granularities[]": ["word"],
    });
    expect(
      parse({ response_format: "verbose_json", "timestamp_granularities[]": ["word", "segment"] })[
        "timestamp_granularities[]"
      ],
    ).toEqual(["word", "segment"]);
  });

  it("names the offending field", () => {
    expect(paramOf({ temperature: "1.5" })).toBe("temperature");
    expect(paramOf({ temperature: "warm" })).toBe("temperature");
    expect(paramOf({ response_format: "diarized_json" })).toBe("response_format");
    expect(paramOf({ language: "english" })).toBe("language");
    expect(paramOf({ "timestamp_granularities[]": "word" })).toBe("timestamp_granularities");
    expect(paramOf({ stream: "true" })).toBe("stream");
    expect(paramOf({ model: "" })).toBe("model");
  });
});
