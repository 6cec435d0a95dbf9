import { type GenerateContentResponse, GoogleGenAI, type Tool } from "@google/genai";
import { expect } from "vitest";
import {
  answerSchema,
  billedOnce,
  collect,
  expectBilledAsShown,
  expectFitsSchema,
  expectImageSent,
  expectSchemaSent,
  type IngressProbes,
  longPrefix,
  onlyUpstream,
  type ProbeContext,
  pngBase64,
  timeParameters,
  weatherParameters,
} from "./probe-context.js";

// Each feature through Gemini's generateContent, with the official @google/genai SDK.

const client = (context: ProbeContext) =>
  new GoogleGenAI({
    apiKey: context.apiKey,
    httpOptions: { baseUrl: new URL(context.stack.baseUrl).origin, apiVersion: "v1beta" },
  });

const weather: Tool = { functionDeclarations: [{ name: "get_weather", parametersJsonSchema: weatherParameters }] };
const both: Tool = {
  functionDeclarations: [
    { name: "get_weather", parametersJsonSchema: weatherParameters },
    { name: "get_time", parametersJsonSchema: timeParameters },
  ],
};

const partsOf = (response: GenerateContentResponse) => response.candidates?.[0]?.content?.parts ?? [];

export const geminiProbes = (vendorOfModel: (model: string) => string): IngressProbes => ({
  cannotCarry: (vendor, feature) =>
    vendor === "anthropic" && feature === "prompt caching"
      ? "a generateContent request has no cache marker, and Claude caches only marked prefixes"
      : undefined,
  probes: {
    text: async (context, model, marker) => {
      const response = await client(context).models.generateContent({ model, contents: marker });
      expect(response.text).toBeTruthy();
      expect(response.candidates![0]!.finishReason).toBe("STOP");
    },
    stream: async (context, model, marker) => {
      const chunks = await collect(await client(context).models.generateContentStream({ model, contents: marker }));
      expect(chunks.filter((chunk) => chunk.text).length).toBeGreaterThan(1);
      expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe("STOP");
      expect(chunks.at(-1)!.usageMetadata!.totalTokenCount).toBeGreaterThan(0);
    },
    tools: async (context, model, marker) => {
      const response = await client(context).models.generateContent({
        model,
        contents: `Weather in Paris? ${marker}`,
        config: { tools: [weather] },
      });
      expect(response.functionCalls![0]).toMatchObject({ name: "get_weather", args: { city: expect.any(String) } });
    },
    "streamed tools": async (context, model, marker) => {
      const chunks = await collect(
        await client(context).models.generateContentStream({
          model,
          contents: `Weather in Paris? ${marker}`,
          config: { tools: [weather] },
        }),
      );
      const calls = chunks.flatMap((chunk) => chunk.functionCalls ?? []);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ name: "get_weather", args: { city: expect.any(String) } });
    },
    "parallel tools": async (context, model, marker) => {
      const response = await client(context).models.generateContent({
        model,
        contents: `Weather and time in Paris? ${marker}`,
        config: { tools: [both] },
      });
      expect(response.functionCalls!.map((call) => call.name)).toEqual(["get_weather", "get_time"]);
    },
    vision: async (context, model, marker) => {
      const response = await client(context).models.generateContent({
        model,
        contents: [
          {
            role: "user",
            parts: [{ text: `What colour? ${marker}` }, { inlineData: { mimeType: "image/png", data: pngBase64 } }],
          },
        ],
      });
      expect(response.text).toBeTruthy();
      expectImageSent(vendorOfModel(model), await onlyUpstream(context, marker));
    },
    "structured output": async (context, model, marker) => {
      const response = await client(context).models.generateContent({
        model,
        contents: `Weather in Paris as JSON. ${marker}`,
        config: { responseMimeType: "application/json", responseJsonSchema: answerSchema },
      });
      expectFitsSchema(response.text!);
      expectSchemaSent(await onlyUpstream(context, marker));
    },
    reasoning: async (context, model, marker) => {
      const response = await client(context).models.generateContent({
        model,
        contents: marker,
        config: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
      });
      const thought = partsOf(response).some((part) => part.thought && part.text);
      expect(thought || (response.usageMetadata?.thoughtsTokenCount ?? 0) > 0).toBe(true);
    },
    "prompt caching": async (context, model, marker) => {
      const ask = () =>
        client(context).models.generateContent({
          model,
          contents: "Summarise.",
          config: { systemInstruction: `${marker} ${longPrefix}` },
        });
      await ask();
      const second = await ask();
      expect(second.usageMetadata!.cachedContentTokenCount ?? 0).toBeGreaterThan(0);
    },
    "usage exact": async (context, model, marker) => {
      const response = await client(context).models.generateContent({ model, contents: marker });
      const usage = response.usageMetadata!;
      const requestId = response.sdkHttpResponse?.headers?.["x-request-id"] ?? "";
      expectBilledAsShown(await billedOnce(context, requestId), {
        prompt_tokens: usage.promptTokenCount ?? 0,
        completion_tokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
        cached_tokens: usage.cachedContentTokenCount ?? 0,
        reasoning_tokens: usage.thoughtsTokenCount ?? 0,
      });
    },
  },
});
