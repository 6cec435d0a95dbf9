import { fileURLToPath } from "node:url";
import { Catalogue } from "@gateway/catalogue";
import type { ChatRequest, ContentPart } from "@gateway/proto/router/v1/chat";
import { countTokens as o200kTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { estimatePromptTokens } from "./token-estimate.js";
import { sampleTexts, scriptCharacters } from "./unicode-scripts.fixtures.js";

const catalogue = Catalogue.fromFile(
  fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url)),
  {
    env: {},
    simulatorUrl: "http://127.0.0.1:8090",
  },
);
const model = (id: string) => catalogue.find(id, "premium")!;

const chat = (text: string, parts: ContentPart[] = []): ChatRequest =>
  ({ model: "m", messages: [{ role: "user", text, parts, toolCalls: [] }], tools: [] }) as unknown as ChatRequest;

// Only the signature and IHDR chunk: all a reader needs for the size.
function pngDataUrl(width: number, height: number): string {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "ascii");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  header.set([8, 2, 0, 0, 0], 24);
  return `data:image/png;base64,${header.toString("base64")}`;
}

const chinese = "请用三句话概括这份季度财务报告的主要结论，并指出收入增长最快的业务线以及主要的风险因素。".repeat(20);
const english =
  "Please summarise the main conclusions of this quarterly financial report in three sentences, " +
  "and name the fastest-growing business line and the main risk factors.";

describe("estimatePromptTokens", () => {
  it("reserves at least one token per Chinese character for vendors without an exact tokenizer", () => {
    for (const id of ["deepseek-chat", "qwen-plus", "claude-sonnet-4-6", "gemini-2.5-flash", "kimi-k2-0905-preview"]) {
      expect(estimatePromptTokens(chat(chinese), model(id)), id).toBeGreaterThanOrEqual(chinese.length);
    }
  });

  it("counts an English prompt to an OpenAI model with its real encoding", () => {
    const exact = o200kTokens(english);
    expect(estimatePromptTokens(chat(english), model("gpt-4o"))).toBe(exact + 3);
  });

  it("counts a Chinese prompt to an OpenAI model as o200k does", () => {
    expect(estimatePromptTokens(chat(chinese), model("gpt-4o"))).toBe(o200kTokens(chinese) + 3);
  });

  it("bounds text past the exact-count budget by its bytes, never below the real count", () => {
    const long = english.repeat(400);
    const estimate = estimatePromptTokens(chat(long), model("gpt-4o"));
    expect(estimate).toBeGreaterThanOrEqual(o200kTokens(long));
    expect(estimate).toBeLessThanOrEqual(6 * o200kTokens(long));
  });

  it("bills 20,000 Cherokee characters to gpt-5.5 at no fewer tokens than o200k counts", () => {
    const cherokee = sampleTexts(scriptCharacters("Cherokee"), 20_000, 1).words!;
    expect(estimatePromptTokens(chat(cherokee), model("gpt-5.5"))).toBeGreaterThanOrEqual(o200kTokens(cherokee) + 3);
  });

  it("sizes data-URL images by their dimensions under the vendor's rule", () => {
    const image = (width: number, height: number, detail?: string) =>
      chat("", [{ imageUrl: { url: pngDataUrl(width, height), detail } }]);
    expect(estimatePromptTokens(image(2048, 4096), model("gpt-4o"))).toBe(3 + 85 + 170 * 6);
    expect(estimatePromptTokens(image(2048, 4096, "low"), model("gpt-4o"))).toBe(3 + 85);
    expect(estimatePromptTokens(image(1000, 1000), model("claude-sonnet-4-6"))).toBe(3 + 1334);
    expect(estimatePromptTokens(image(1024, 1024), model("gemini-2.5-flash"))).toBe(3 + 258 * 4);
    expect(estimatePromptTokens(image(1024, 1024), model("gpt-4o-mini"))).toBe(3 + 2833 + 5667 * 4);
  });

  it("reserves the vendor's maximum for a remote image of unknown size", () => {
    const remote = chat("", [{ imageUrl: { url: "https://example.com/cat.png" } }]);
    expect(estimatePromptTokens(remote, model("gpt-4o"))).toBe(3 + 85 + 170 * 8);
    expect(estimatePromptTokens(remote, model("claude-sonnet-4-6"))).toBe(3 + 1600);
    expect(estimatePromptTokens(remote, model("gemini-2.5-flash"))).toBe(3 + 258 * 16);
  });

  it("takes a data URL it cannot read at the vendor's maximum", () => {
    const broken = chat("", [{ imageUrl: { url: "data:image/png;base64,AAAA" } }]);
    expect(estimatePromptTokens(broken, model("claude-sonnet-4-6"))).toBe(3 + 1600);
  });
});
