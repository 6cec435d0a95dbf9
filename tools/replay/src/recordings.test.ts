import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { expectedOf, notReplayable } from "./expected.js";
import { bodyText, loadRecordings, type ManifestEntry, readRecording } from "./recordings.js";

const entry = (file: string, format: ManifestEntry["format"], interaction = 0): ManifestEntry => ({
  id: "cassette",
  file,
  family: "openai",
  protocol: "openai-chat",
  format,
  interaction,
  stream: false,
  status: 200,
  headers: { "Retry-After": "3" },
  model: "gpt-4o-mini",
  features: ["text"],
  source: { repo: "example/example", path: file, commit: "0".repeat(40) },
});

const answer = { choices: [{ message: { content: "hi" }, finish_reason: "stop" }] };

function cassetteDirectory(name: string, text: string): string {
  const directory = mkdtempSync(join(tmpdir(), "replay-recordings-"));
  writeFileSync(join(directory, name), text);
  return directory;
}

describe("recordings", () => {
  it("takes a Ruby VCR cassette's gzipped !binary body, and only the manifest's headers and the content type", () => {
    const body = gzipSync(JSON.stringify(answer)).toString("base64");
    const directory = cassetteDirectory(
      "ruby.yml",
      [
        "http_interactions:",
        "- request: {method: post}",
        "  response:",
        "    status: {code: 500}",
        "- request: {method: post}",
        "  response:",
        "    status: {code: 200}",
        "    headers:",
        "      Content-Type: [application/json]",
        "      Content-Encoding: [gzip]",
        "      Set-Cookie: [a=b]",
        "    body:",
        "      encoding: ASCII-8BIT",
        `      string: !binary |-\n        ${body}`,
      ].join("\n"),
    );
    const recording = readRecording(directory, entry("ruby.yml", "vcr-yaml", 1));
    expect(JSON.parse(bodyText(recording))).toEqual(answer);
    expect(recording.headers).toEqual({ "content-type": "application/json", "retry-after": "3" });
  });

  it("takes pydantic-ai's parsed_body and vcrpy's base64_string", () => {
    const pydantic = cassetteDirectory(
      "pydantic.yaml",
      `interactions:\n- response:\n    status: {code: 200}\n    parsed_body:\n      choices: [{message: {content: hi}, finish_reason: stop}]\n`,
    );
    expect(JSON.parse(bodyText(readRecording(pydantic, entry("pydantic.yaml", "vcr-yaml"))))).toEqual(answer);
    const base64 = Buffer.from(JSON.stringify(answer)).toString("base64");
    const json = cassetteDirectory(
      "vcr.json",
      JSON.stringify({ interactions: [{ response: { body: { base64_string: base64 } } }] }),
    );
    expect(JSON.parse(bodyText(readRecording(json, entry("vcr.json", "vcr-json"))))).toEqual(answer);
  });

  it("reads every recording of the manifest into what a client must see, or says why it cannot be replayed", () => {
    const recordings = loadRecordings();
    expect(recordings.length).toBeGreaterThan(0);
    for (const recording of recordings) {
      if (notReplayable(recording)) continue;
      const expected = expectedOf(recording);
      if (expected.kind === "chat") {
        // Something came back: text, a call, reasoning, or a filtered or cut answer.
        const said = expected.text + expected.reasoning + expected.toolCalls.map((call) => call.name).join("");
        expect(said !== "" || expected.finish !== "stop", recording.id).toBe(true);
        expect(expected.usage.total, recording.id).toBe(expected.usage.prompt + expected.usage.completion);
      }
    }
  });
});
