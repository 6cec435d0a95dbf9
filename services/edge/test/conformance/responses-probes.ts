import OpenAI from "openai";
import type { FunctionTool, Response, ResponseFunctionToolCall } from "openai/resources/responses/responses";
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

// Each feature through OpenAI's Responses API, with the official openai SDK.

const client = (context: ProbeContext) =>
  new OpenAI({ baseURL: context.stack.baseUrl, apiKey: context.apiKey, maxRetries: 0 });

const tool = (name: string, parameters: Record<string, unknown>): FunctionTool => ({
  type: "function",
  name,
  parameters,
  strict: false,
});
const weather = tool("get_weather", weatherParameters);
const time = tool("get_time", timeParameters);

const calls = (response: Response) =>
  response.output.filter((item): item is ResponseFunctionToolCall => item.type === "function_call");

export const responsesProbes = (vendorOfModel: (model: string) => string): IngressProbes => ({
  cannotCarry: (vendor, feature) =>
    vendor === "anthropic" && feature === "prompt caching"
      ? "the Responses request has no cache marker, and Claude caches only marked prefixes"
      : undefined,
  probes: {
    text: async (context, model, marker) => {
      const response = await client(context).responses.create({ model, input: marker });
      expect(response.status).toBe("completed");
      expect(response.output_text).toBeTruthy();
    },
    stream: async (context, model, marker) => {
      const events = await collect(await client(context).responses.create({ model, input: marker, stream: true }));
      const deltas = events.flatMap((event) => (event.type === "response.output_text.delta" ? [event.delta] : []));
      expect(deltas.length).toBeGreaterThan(1);
      const completed = events.at(-1);
      expect(completed?.type).toBe("response.completed");
      // output_text is the SDK's own convenience on created responses, not on the wire: read the message.
      const message = (completed as { response: Response }).response.output.find((item) => item.type === "message");
      expect(message?.content[0]).toMatchObject({ type: "output_text", text: deltas.join("") });
    },
    tools: async (context, model, marker) => {
      const response = await client(context).responses.create({
        model,
        input: `Weather in Paris? ${marker}`,
        tools: [weather],
        tool_choice: "required",
      });
      const [call] = calls(response);
      expect(call!.name).toBe("get_weather");
      expect(JSON.parse(call!.arguments)).toHaveProperty("city");
    },
    "streamed tools": async (context, model, marker) => {
      const events = await collect(
        await client(context).responses.create({
          model,
          input: `Weather in Paris? ${marker}`,
          tools: [weather],
          stream: true,
        }),
      );
      const deltas = events.flatMap((event) =>
        event.type === "response.function_call_arguments.delta" ? [event.delta] : [],
      );
      const done = events.find((event) => event.type === "response.function_call_arguments.done");
      expect(deltas.length).toBeGreaterThan(0);
      expect(done).toMatchObject({ arguments: deltas.join("") });
      expect(JSON.parse(deltas.join(""))).toHaveProperty("city");
    },
    "parallel tools": async (context, model, marker) => {
      const response = await client(context).responses.create({
        model,
        input: `Weather and time in Paris? ${marker}`,
        tools: [weather, time],
        parallel_tool_calls: true,
      });
      expect(calls(response).map((call) => call.name)).toEqual(["get_weather", "get_time"]);
    },
    vision: async (context, model, marker) => {
      const response = await client(context).responses.create({
        model,
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: `What colour? ${marker}` },
              { type: "input_image", image_url: `data:image/png;base64,${pngBase64}`, detail: "auto" },
            ],
          },
        ],
      });
      expect(response.output_text).toBeTruthy();
      expectImageSent(vendorOfModel(model), await onlyUpstream(context, marker));
    },
    "structured output": async (context, model, marker) => {
      const response = await client(context).responses.create({
        model,
        input: `Weather in Paris as JSON. ${marker}`,
        text: { format: { type: "json_schema", name: "weather", schema: answerSchema, strict: true } },
      });
      expectFitsSchema(response.output_text);
      expectSchemaSent(await onlyUpstream(context, marker));
    },
    reasoning: async (context, model, marker) => {
      const response = await client(context).responses.create({
        model,
        input: marker,
        reasoning: { effort: "low" },
      });
      const shown = response.output.some((item) => item.type === "reasoning" && item.summary.length > 0);
      expect(shown || (response.usage?.output_tokens_details.reasoning_tokens ?? 0) > 0).toBe(true);
    },
    "prompt caching": async (context, model, marker) => {
      const ask = () =>
        client(context).responses.create({ model, instructions: `${marker} ${longPrefix}`, input: "Summarise." });
      await ask();
      const second = await ask();
      expect(second.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    },
    "usage exact": async (context, model, marker) => {
      const { data, response } = await client(context).responses.create({ model, input: marker }).withResponse();
      const usage = data.usage!;
      expectBilledAsShown(await billedOnce(context, response.headers.get("x-request-id") ?? ""), {
        prompt_tokens: usage.input_tokens,
        completion_tokens: usage.output_tokens,
        cached_tokens: usage.input_tokens_details.cached_tokens,
        reasoning_tokens: usage.output_tokens_details.reasoning_tokens,
      });
    },
  },
});
