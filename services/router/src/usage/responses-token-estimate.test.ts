import { fileURLToPath } from "node:url";
import { Catalogue } from "@gateway/catalogue";
import { countTokens as o200kTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { imageTokens } from "./image-tokens.js";
import { estimateResponsesPromptTokens } from "./responses-token-estimate.js";
import { imageTokenRule } from "./token-estimate.js";

const catalogue = Catalogue.fromFile(
  fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url)),
  { env: {}, simulatorUrl: "http://127.0.0.1:8090" },
);
const gpt5 = catalogue.find("gpt-5", "premium")!;

describe("the prompt estimate of a relayed Responses body", () => {
  it("is never short of the vendor's count of the text it carries", () => {
    const prompt = "Read hello.txt and tell me what it says, then summarise the repository's layout.";
    const body = JSON.stringify({ model: "gpt-5", input: [{ role: "user", content: prompt }] });
    expect(estimateResponsesPromptTokens(body, gpt5)).toBeGreaterThanOrEqual(o200kTokens(prompt));
  });

  it("counts an inline image by the model's image rule, not its base64", () => {
    const image = `data:image/png;base64,${"A".repeat(400_000)}`;
    const body = JSON.stringify({
      model: "gpt-5",
      input: [{ role: "user", content: [{ type: "input_image", image_url: image }] }],
    });
    const withoutImage = estimateResponsesPromptTokens(body.replace(image, ""), gpt5);
    const largest = imageTokens(imageTokenRule(gpt5), undefined);
    expect(estimateResponsesPromptTokens(body, gpt5)).toBe(withoutImage + largest);
  });
});
