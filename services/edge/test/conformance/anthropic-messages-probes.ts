import Anthropic from "@anthropic-ai/sdk";
import type { Message, RawMessageStreamEvent, Tool } from "@anthropic-ai/sdk/resources/messages";
import { expect } from "vitest";
import {
  billedOnce,
  collect,
  expectBilledAsShown,
  expectImageSent,
  type IngressProbes,
  longPrefix,
  onlyUpstream,
  type ProbeContext,
  pngBase64,
  timeParameters,
  weatherParameters,
} from "./probe-context.js";

// Each feature through Anthropic's Messages API, with the official @anthropic-ai/sdk.

// The SDK adds /v1 itself.
const client = (context: ProbeContext) =>
  new Anthropic({ baseURL: context.stack.baseUrl.replace(/\/v1$/, ""), apiKey: context.apiKey, maxRetries: 0 });

const weather: Tool = { name: "get_weather", input_schema: weatherParameters as Tool["input_schema"] };
const time: Tool = { name: "get_time", input_schema: timeParameters as Tool["input_schema"] };

const toolUses = (message: Message) => message.content.filter((block) => block.type === "tool_use");

const deltasOf = (events: RawMessageStreamEvent[], type: string) =>
  events.flatMap((event) =>
    event.type === "content_block_delta" && event.delta.type === type
      ? [event.delta as unknown as Record<string, string>]
      : [],
  );

export const anthropicMessagesProbes = (vendorOfModel: (model: string) => string): IngressProbes => ({
  cannotCarry: (_vendor, feature) =>
    feature === "structured output"
      ? "the Messages ingress has no field for a JSON schema of the answer (Anthropic's `output_config` reaches Claude unread and other families not at all)"
      : undefined,
  probes: {
    text: async (context, model, marker) => {
      const message = await client(context).messages.create({
        model,
        max_tokens: 300,
        messages: [{ role: "user", content: marker }],
      });
      expect(message.content[0]).toMatchObject({ type: "text" });
      expect(message.stop_reason).toBe("end_turn");
    },
    stream: async (context, model, marker) => {
      const events = await collect(
        await client(context).messages.create({
          model,
          max_tokens: 300,
          messages: [{ role: "user", content: marker }],
          stream: true,
        }),
      );
      expect(events[0]!.type).toBe("message_start");
      expect(deltasOf(events, "text_delta").length).toBeGreaterThan(1);
      expect(events.at(-1)!.type).toBe("message_stop");
    },
    tools: async (context, model, marker) => {
      const message = await client(context).messages.create({
        model,
        max_tokens: 300,
        messages: [{ role: "user", content: `Weather in Paris? ${marker}` }],
        tools: [weather],
        tool_choice: { type: "any" },
      });
      const [call] = toolUses(message);
      expect(call).toMatchObject({ name: "get_weather", input: { city: expect.any(String) } });
      expect(message.stop_reason).toBe("tool_use");
    },
    "streamed tools": async (context, model, marker) => {
      const events = await collect(
        await client(context).messages.create({
          model,
          max_tokens: 300,
          messages: [{ role: "user", content: `Weather in Paris? ${marker}` }],
          tools: [weather],
          stream: true,
        }),
      );
      const json = deltasOf(events, "input_json_delta")
        .map((delta) => delta.partial_json)
        .join("");
      expect(JSON.parse(json)).toHaveProperty("city");
    },
    "parallel tools": async (context, model, marker) => {
      const message = await client(context).messages.create({
        model,
        max_tokens: 300,
        messages: [{ role: "user", content: `Weather and time in Paris? ${marker}` }],
        tools: [weather, time],
      });
      expect(toolUses(message).map((block) => block.name)).toEqual(["get_weather", "get_time"]);
    },
    vision: async (context, model, marker) => {
      const message = await client(context).messages.create({
        model,
        max_tokens: 300,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: `What colour? ${marker}` },
              { type: "image", source: { type: "base64", media_type: "image/png", data: pngBase64 } },
            ],
          },
        ],
      });
      expect(message.content[0]).toMatchObject({ type: "text" });
      expectImageSent(vendorOfModel(model), await onlyUpstream(context, marker));
    },
    "structured output": async () => {
      throw new Error("not carried by this ingress");
    },
    reasoning: async (context, model, marker) => {
      const { data: message, response } = await client(context)
        .messages.create({
          model,
          max_tokens: 2048,
          thinking: { type: "enabled", budget_tokens: 1024 },
          messages: [{ role: "user", content: marker }],
        })
        .withResponse();
      const thinking = message.content.find((block) => block.type === "thinking");
      if (vendorOfModel(model) !== "openai") {
        expect(thinking?.thinking).toBeTruthy();
        return;
      }
      // OpenAI never shows its reasoning text, and Anthropic's usage has no reasoning count: the
      // budget must reach OpenAI as an effort, and its reasoning tokens be billed as output.
      expect(await onlyUpstream(context, marker)).toMatchObject({ reasoning_effort: "low" });
      const billed = await billedOnce(context, response.headers.get("x-request-id") ?? "");
      expect(billed.reasoning_tokens).toBeGreaterThan(0);
    },
    "prompt caching": async (context, model, marker) => {
      const ask = () =>
        client(context).messages.create({
          model,
          max_tokens: 300,
          system: [{ type: "text", text: `${marker} ${longPrefix}`, cache_control: { type: "ephemeral" } }],
          messages: [{ role: "user", content: "Summarise." }],
        });
      await ask();
      const second = await ask();
      expect(second.usage.cache_read_input_tokens ?? 0).toBeGreaterThan(0);
    },
    "usage exact": async (context, model, marker) => {
      const { data, response } = await client(context)
        .messages.create({ model, max_tokens: 300, messages: [{ role: "user", content: marker }] })
        .withResponse();
      const usage = data.usage;
      const cacheRead = usage.cache_read_input_tokens ?? 0;
      expectBilledAsShown(await billedOnce(context, response.headers.get("x-request-id") ?? ""), {
        prompt_tokens: usage.input_tokens + cacheRead + (usage.cache_creation_input_tokens ?? 0),
        completion_tokens: usage.output_tokens,
        cached_tokens: cacheRead,
      });
    },
  },
});
