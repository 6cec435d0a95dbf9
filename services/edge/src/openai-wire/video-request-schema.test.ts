import { describe, expect, it } from "vitest";
import { validateBody } from "./validate-body.js";
import { pollAfterSeconds, videoGenerationSchema } from "./video-request-schema.js";

const valid = { model: "sora-2", prompt: "a cat", async: true };

const problem = (body: unknown) => {
  try {
    validateBody(videoGenerationSchema, body);
  } catch (error) {
    return (error as { param: string | null; message: string }).param;
  }
  return "accepted";
};

describe("videoGenerationSchema", () => {
  it("defaults duration to 5 seconds", () => {
    expect(validateBody(videoGenerationSchema, valid).duration).toBe(5);
    expect(validateBody(videoGenerationSchema, { ...valid, duration: 20 }).duration).toBe(20);
  });

  it("names the parameter at fault", () => {
    expect(problem({ ...valid, duration: 7 })).toBe("duration");
    expect(problem({ ...valid, duration: "5" })).toBe("duration");
    expect(problem({ ...valid, async: false })).toBe("async");
    expect(problem({ model: "sora-2", prompt: "a cat" })).toBe("async");
    expect(problem({ ...valid, prompt: " " })).toBe("prompt");
    expect(problem({ ...valid, model: undefined })).toBe("model");
    expect(problem({ ...valid, callback_url: "ftp://example.com" })).toBe("callback_url");
    expect(problem({ ...valid, colour: "red" })).toBe("colour");
  });

  it("says async must be true", () => {
    expect(() => validateBody(videoGenerationSchema, { ...valid, async: false })).toThrow(/must be true/);
  });

  it("advises polling by duration", () => {
    expect([5, 10, 15, 20].map(pollAfterSeconds)).toEqual([5, 5, 15, 15]);
  });
});
