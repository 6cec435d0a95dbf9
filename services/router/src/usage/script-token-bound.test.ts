import { createHash } from "node:crypto";
import { countTokens as cl100kTokens } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as o200kTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { scriptTokenBound } from "./script-token-bound.js";
import { sampleTexts, scriptCharacters, unicodeScripts, unlistedCharacters } from "./unicode-scripts.fixtures.js";

const realCounts = (text: string) => ({
  o200k: o200kTokens(text, { disallowedSpecial: new Set() }),
  cl100k: cl100kTokens(text, { disallowedSpecial: new Set() }),
});

// Fixed pseudo-random bytes, so the run is repeatable.
const noise = (bytes: number) => {
  const blocks: Buffer[] = [];
  for (let seed = 0; blocks.length * 64 < bytes; seed += 1)
    blocks.push(createHash("sha512").update(String(seed)).digest());
  return Buffer.concat(blocks).subarray(0, bytes);
};

const samples: Record<string, string> = {
  english:
    "The gateway reserves the worst-case cost of a request before it reaches a vendor, and settles it afterwards. " +
    "Billing in integer micro-yuan keeps floating point away from money; every usage event is priced once.",
  chinese:
    "统一模型网关在请求到达供应商之前预留最坏情况下的费用，并在请求结束后结算。以整数微元计费，确保每一个用量事件只被定价一次。",
  japanese:
    "ゲートウェイはリクエストがベンダーに届く前に最悪の場合の費用を予約し、その後で精算します。東京都の天気は晴れです。",
  korean: "게이트웨이는 요청이 공급업체에 도달하기 전에 최악의 비용을 예약하고 나중에 정산합니다.",
  russian: "Шлюз резервирует наихудшую стоимость запроса до того, как он достигнет поставщика, и рассчитывается после.",
  code: 'export function add(a: number, b: number): number {\n  return a + b; // sum\n}\nconst x = add(1, 2);\nif (x !== 3) throw new Error("bad");\n',
  json: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }], temperature: 0.2, n: 1 }),
  numbers: "3.14159 2.71828 1234567890 42 1e-9 0xDEADBEEF 2024-11-22T10:00:00Z",
  base64: noise(600).toString("base64"),
  hex: noise(400).toString("hex"),
  emoji: "Thanks! 🎉🎉 Great work 👍🏽 — see you 🙂",
  markdown: "# Title\n\n- item one\n- item two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\npnpm build\n```\n",
  spaced: "a b c d e f g h i j k l m n o p q r s t u v w x y z ".repeat(10),
};

describe("scriptTokenBound", () => {
  it.each(Object.entries(samples))("never counts fewer tokens than o200k or cl100k for %s", (_name, text) => {
    const bound = scriptTokenBound(text);
    expect(bound).toBeGreaterThanOrEqual(o200kTokens(text, { disallowedSpecial: new Set() }));
    expect(bound).toBeGreaterThanOrEqual(cl100kTokens(text, { disallowedSpecial: new Set() }));
  });

  it("counts a lone surrogate as the three bytes of U+FFFD a vendor receives", () => {
    expect(scriptTokenBound("\ud800")).toBe(3);
    expect(scriptTokenBound("\u{1f389}")).toBe(4);
  });

  it("counts 20,000 Cherokee characters at no fewer tokens than o200k (which needs ~2.6 a character)", () => {
    const cherokee = sampleTexts(scriptCharacters("Cherokee"), 20_000, 1).words!;
    expect(scriptTokenBound(cherokee)).toBeGreaterThanOrEqual(realCounts(cherokee).o200k);
  });

  it("counts Chinese at more than one token per character, not four characters per token", () => {
    const text = samples.chinese!;
    expect(scriptTokenBound(text)).toBeGreaterThanOrEqual(text.length);
  });

  it("never counts fewer tokens than o200k or cl100k for random lowercase letters (up to one a letter)", () => {
    for (let seed = 0; seed < 200; seed++) {
      const letters = [...noise(40 + seed)].map((byte) => String.fromCharCode(0x61 + (byte % 26)));
      const text = letters.join(seed % 2 ? "" : " ");
      const real = realCounts(text);
      expect(scriptTokenBound(text), text).toBeGreaterThanOrEqual(Math.max(real.o200k, real.cl100k));
    }
  });

  it("counts English prose at its bytes less the spaces before words, about 4.5 times the real count", () => {
    const text = samples.english!;
    expect(scriptTokenBound(text)).toBeLessThanOrEqual(4.5 * o200kTokens(text));
  });
});

describe("scriptTokenBound on text from every Unicode script", () => {
  it("knows every script: no assigned character falls outside the listed scripts", () => {
    expect(unlistedCharacters()).toEqual([]);
  });

  it.each(unicodeScripts)("never counts fewer tokens than o200k or cl100k for %s", (script) => {
    const characters = scriptCharacters(script);
    expect(characters.length).toBeGreaterThan(0);
    for (let seed = 0; seed < 3; seed++) {
      for (const [shape, text] of Object.entries(sampleTexts(characters, 400, seed))) {
        const bound = scriptTokenBound(text);
        const real = realCounts(text);
        expect(bound, `${shape} ${seed} ${JSON.stringify(text.slice(0, 40))}`).toBeGreaterThanOrEqual(real.o200k);
        expect(bound, `${shape} ${seed} ${JSON.stringify(text.slice(0, 40))}`).toBeGreaterThanOrEqual(real.cl100k);
      }
    }
  });
});
