import { describe, expect, it } from "vitest";
import { reportedDurationSeconds } from "./reported-duration.js";

describe("reportedDurationSeconds", () => {
  it("reads verbose_json's duration and whisper's duration usage", () => {
    expect(reportedDurationSeconds('{"text":"hi","duration":4.2}', "application/json")).toBe(4.2);
    expect(reportedDurationSeconds('{"text":"hi","usage":{"type":"duration","seconds":3}}', "application/json")).toBe(
      3,
    );
  });

  it("finds none in token usage, text formats or broken JSON", () => {
    const tokens = '{"text":"hi","usage":{"type":"tokens","input_tokens":5,"output_tokens":1,"total_tokens":6}}';
    expect(reportedDurationSeconds(tokens, "application/json")).toBeUndefined();
    expect(reportedDurationSeconds("1\n00:00:00,000 --> 00:00:01,000\nhi\n", "text/plain")).toBeUndefined();
    expect(reportedDurationSeconds("{", "application/json")).toBeUndefined();
    expect(reportedDurationSeconds('{"duration":-1}', "application/json")).toBeUndefined();
  });
});
