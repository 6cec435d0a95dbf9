import { describe, expect, it } from "vitest";
import { camelCaseKeys } from "./camel-case-keys.js";

describe("snake_case Gemini requests", () => {
  it("reads Google's field names in either case and leaves the client's own names alone", () => {
    const body = {
      system_instruction: { parts: [{ text: "Be brief." }] },
      contents: [
        { role: "model", parts: [{ function_call: { name: "f", args: { city_name: "Oslo" } } }] },
        { parts: [{ function_response: { name: "f", response: { max_temp: 3 } } }] },
        { parts: [{ inline_data: { mime_type: "image/png", data: "AAAA" } }] },
      ],
      tools: [{ function_declarations: [{ name: "f", parameters: { properties: { city_name: {} } } }] }],
      generation_config: { max_output_tokens: 10, thinking_config: { include_thoughts: true } },
    };
    expect(camelCaseKeys(body)).toEqual({
      systemInstruction: { parts: [{ text: "Be brief." }] },
      contents: [
        { role: "model", parts: [{ functionCall: { name: "f", args: { city_name: "Oslo" } } }] },
        { parts: [{ functionResponse: { name: "f", response: { max_temp: 3 } } }] },
        { parts: [{ inlineData: { mimeType: "image/png", data: "AAAA" } }] },
      ],
      tools: [{ functionDeclarations: [{ name: "f", parameters: { properties: { city_name: {} } } }] }],
      generationConfig: { maxOutputTokens: 10, thinkingConfig: { includeThoughts: true } },
    });
  });
});
