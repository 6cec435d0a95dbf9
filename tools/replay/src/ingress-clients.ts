import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import {
  type ChatAnswer,
  type FinishReason,
  type Loose,
  type NormalisedUsage,
  readAnthropicMessages,
  readGeminiGenerate,
  readOpenAIChat,
} from "./expected.js";

// The gateway's four chat ingresses driven with their official SDKs, each answer read back with
// the same protocol readers as the vendors' (a protocol is a protocol), its usage as shown.

export const chatIngresses = ["OpenAI chat", "OpenAI Responses", "Anthropic Messages", "Gemini"] as const;
export type ChatIngress = (typeof chatIngresses)[number];

export interface GatewayClients {
  openai: OpenAI;
  anthropic: Anthropic;
  gemini: GoogleGenAI;
}

export function gatewayClients(baseUrl: string, apiKey: string): GatewayClients {
  return {
    openai: new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0 }),
    // The SDK adds /v1 itself.
    anthropic: new Anthropic({ baseURL: baseUrl.replace(/\/v1$/, ""), apiKey, maxRetries: 0 }),
    gemini: new GoogleGenAI({ apiKey, httpOptions: { baseUrl: new URL(baseUrl).origin, apiVersion: "v1beta" } }),
  };
}

export interface ChatAsk {
  model: string;
  /** The user's turn; the replay vendor finds the recording by it. */
  prompt: string;
  stream: boolean;
  /** Tools the recorded answer calls, offered so the call is one the client asked for. */
  toolNames: string[];
  /** Asks for thoughts to be shown where the ingress shows them only on request (Gemini's includeThoughts). */
  thoughts: boolean;
  logprobs: boolean;
}

export interface ClientAnswer extends ChatAnswer {
  /** The usage the ingress showed, in the rule's terms; only the counts this ingress has. */
  shownUsage: Partial<NormalisedUsage>;
  /** Everything the client received, serialised: opaque values (signatures) are looked for in it. */
  everything: string;
  requestId: string;
  /** The whole answer of a request that did not stream, as the SDK gave it: what a client sends back. */
  reply?: Loose;
}

const parameters = { type: "object", properties: {} };
const count = (value: unknown) => (typeof value === "number" ? value : 0);

export async function askChat(clients: GatewayClients, ingress: ChatIngress, ask: ChatAsk): Promise<ClientAnswer> {
  switch (ingress) {
    case "OpenAI chat":
      return askOpenAIChat(clients.openai, ask);
    case "OpenAI Responses":
      return askResponses(clients.openai, ask);
    case "Anthropic Messages":
      return askMessages(clients.anthropic, ask);
    case "Gemini":
      return askGemini(clients.gemini, ask);
  }
}

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function askOpenAIChat(client: OpenAI, ask: ChatAsk): Promise<ClientAnswer> {
  const body = {
    model: ask.model,
    messages: [{ role: "user" as const, content: ask.prompt }],
    ...(ask.toolNames.length > 0 && {
      tools: ask.toolNames.map((name) => ({ type: "function" as const, function: { name, parameters } })),
    }),
    ...(ask.logprobs && { logprobs: true, top_logprobs: 2 }),
  };
  const { payloads, requestId } = ask.stream
    ? await client.chat.completions
        .create({ ...body, stream: true, stream_options: { include_usage: true } })
        .withResponse()
        .then(async ({ data, response }) => ({
          payloads: await collect(data),
          requestId: response.headers.get("x-request-id") ?? "",
        }))
    : await client.chat.completions
        .create(body)
        .withResponse()
        .then(({ data, response }) => ({ payloads: [data], requestId: response.headers.get("x-request-id") ?? "" }));
  const answer = readOpenAIChat(payloads as Loose[]);
  const usage = answer.wireUsage;
  return {
    ...answer,
    // Claude's thinking blocks, as the gateway shows them on chat.
    signatures: thinkingBlockSignatures(payloads as Loose[]),
    shownUsage: {
      prompt: usage?.prompt_tokens,
      completion: usage?.completion_tokens,
      total: usage?.total_tokens,
      cacheRead: count(usage?.prompt_tokens_details?.cached_tokens),
      cacheWrite: count(usage?.prompt_tokens_details?.cache_write_tokens),
      reasoning: count(usage?.completion_tokens_details?.reasoning_tokens),
    },
    everything: JSON.stringify(payloads),
    requestId,
    ...(!ask.stream && { reply: payloads[0] as Loose }),
  };
}

function thinkingBlockSignatures(payloads: Loose[]): string[] {
  const blocks = payloads.flatMap((payload) => {
    const choice = payload.choices?.[0];
    return ((choice?.message ?? choice?.delta)?.thinking_blocks ?? []) as Loose[];
  });
  return blocks.flatMap((block) => (block.signature ? [block.signature] : block.data ? [block.data] : []));
}

async function askResponses(client: OpenAI, ask: ChatAsk): Promise<ClientAnswer> {
  const body = {
    model: ask.model,
    input: ask.prompt,
    ...(ask.toolNames.length > 0 && {
      tools: ask.toolNames.map((name) => ({ type: "function" as const, name, parameters, strict: false })),
    }),
  };
  let response: Loose;
  let requestId: string;
  let everything: string;
  if (ask.stream) {
    const { data, response: http } = await client.responses.create({ ...body, stream: true }).withResponse();
    const events = (await collect(data)) as Loose[];
    const terminal = events.findLast((event) =>
      ["response.completed", "response.incomplete", "response.failed"].includes(event.type),
    );
    response = terminal?.response ?? {};
    requestId = http.headers.get("x-request-id") ?? "";
    everything = JSON.stringify(events);
  } else {
    const { data, response: http } = await client.responses.create(body).withResponse();
    response = data as Loose;
    requestId = http.headers.get("x-request-id") ?? "";
    everything = JSON.stringify(data);
  }
  return { ...readResponse(response), everything, requestId, ...(!ask.stream && { reply: response }) };
}

/** A Responses `response` object: reasoning items' summaries, message text, function calls, status. */
function readResponse(response: Loose): Omit<ClientAnswer, "everything" | "requestId"> {
  const items = (response.output ?? []) as Loose[];
  const usage = response.usage;
  const finish: FinishReason =
    response.status === "incomplete"
      ? response.incomplete_details?.reason === "content_filter"
        ? "content_filter"
        : "length"
      : items.some((item) => item.type === "function_call")
        ? "tool_calls"
        : "stop";
  return {
    text: items
      .filter((item) => item.type === "message")
      .flatMap((item) => item.content as Loose[])
      .map((part) => part.text ?? part.refusal ?? "")
      .join(""),
    reasoning: items
      .filter((item) => item.type === "reasoning")
      .flatMap((item) => [...(item.summary ?? []), ...(item.content ?? [])] as Loose[])
      .map((part) => part.text)
      .join(""),
    signatures: items.flatMap((item) => (item.encrypted_content ? [item.encrypted_content] : [])),
    toolCalls: items
      .filter((item) => item.type === "function_call")
      .map((item) => ({ name: item.name, arguments: JSON.parse(item.arguments || "{}") })),
    finish,
    wireUsage: usage,
    shownUsage: {
      prompt: usage?.input_tokens,
      completion: usage?.output_tokens,
      total: usage?.total_tokens,
      cacheRead: count(usage?.input_tokens_details?.cached_tokens),
      reasoning: count(usage?.output_tokens_details?.reasoning_tokens),
    },
  };
}

async function askMessages(client: Anthropic, ask: ChatAsk): Promise<ClientAnswer> {
  const body = {
    model: ask.model,
    max_tokens: 4096,
    messages: [{ role: "user" as const, content: ask.prompt }],
    ...(ask.toolNames.length > 0 && {
      tools: ask.toolNames.map((name) => ({ name, input_schema: parameters as Anthropic.Tool["input_schema"] })),
    }),
  };
  const { payloads, requestId } = ask.stream
    ? await client.messages
        .create({ ...body, stream: true })
        .withResponse()
        .then(async ({ data, response }) => ({
          payloads: (await collect(data)) as Loose[],
          requestId: response.headers.get("x-request-id") ?? response.headers.get("request-id") ?? "",
        }))
    : await client.messages
        .create(body)
        .withResponse()
        .then(({ data, response }) => ({
          payloads: [data as Loose],
          requestId: response.headers.get("x-request-id") ?? response.headers.get("request-id") ?? "",
        }));
  const answer = readAnthropicMessages(payloads);
  const usage = answer.wireUsage;
  const cacheRead = count(usage?.cache_read_input_tokens);
  const cacheWrite = count(usage?.cache_creation_input_tokens);
  return {
    ...answer,
    shownUsage: {
      prompt: count(usage?.input_tokens) + cacheRead + cacheWrite,
      completion: usage?.output_tokens,
      cacheRead,
      cacheWrite,
    },
    everything: JSON.stringify(payloads),
    requestId,
    ...(!ask.stream && { reply: payloads[0] }),
  };
}

async function askGemini(client: GoogleGenAI, ask: ChatAsk): Promise<ClientAnswer> {
  const request = {
    model: ask.model,
    contents: ask.prompt,
    config: {
      ...(ask.toolNames.length > 0 && {
        tools: [{ functionDeclarations: ask.toolNames.map((name) => ({ name, parametersJsonSchema: parameters })) }],
      }),
      ...(ask.thoughts && { thinkingConfig: { includeThoughts: true } }),
    },
  };
  const payloads = (
    ask.stream
      ? await collect(await client.models.generateContentStream(request))
      : [await client.models.generateContent(request)]
  ) as Loose[];
  const answer = readGeminiGenerate(payloads);
  const usage = answer.wireUsage;
  const headers = (payloads[0]?.sdkHttpResponse?.headers ?? {}) as Record<string, string>;
  return {
    ...answer,
    shownUsage: {
      prompt: count(usage?.promptTokenCount) + count(usage?.toolUsePromptTokenCount),
      completion: count(usage?.candidatesTokenCount) + count(usage?.thoughtsTokenCount),
      total: usage?.totalTokenCount,
      cacheRead: count(usage?.cachedContentTokenCount),
      reasoning: count(usage?.thoughtsTokenCount),
    },
    everything: JSON.stringify(payloads.map(({ sdkHttpResponse: _, ...payload }) => payload)),
    requestId: headers["x-request-id"] ?? "",
    ...(!ask.stream && { reply: payloads[0] }),
  };
}

/**
 * The next turn of a conversation, sent as a client of the ingress sends it: the user's turn, the
 * assistant's answer exactly as received, then a result for each tool call (or a new user turn).
 */
export async function askFollowUp(clients: GatewayClients, ingress: ChatIngress, ask: ChatAsk, reply: Loose) {
  const tools = ask.toolNames;
  switch (ingress) {
    case "OpenAI chat": {
      const message = reply.choices[0].message as Loose;
      const calls = (message.tool_calls ?? []) as Loose[];
      await clients.openai.chat.completions.create({
        model: ask.model,
        messages: [
          { role: "user", content: ask.prompt },
          message as OpenAI.ChatCompletionMessageParam,
          ...(calls.length > 0
            ? calls.map((call) => ({ role: "tool" as const, tool_call_id: call.id, content: "ok" }))
            : [{ role: "user" as const, content: "Go on." }]),
        ],
        ...(tools.length > 0 && {
          tools: tools.map((name) => ({ type: "function" as const, function: { name, parameters } })),
        }),
      });
      return;
    }
    case "OpenAI Responses": {
      const output = reply.output as Loose[];
      const calls = output.filter((item) => item.type === "function_call");
      await clients.openai.responses.create({
        model: ask.model,
        input: [
          { role: "user", content: ask.prompt },
          ...output,
          ...(calls.length > 0
            ? calls.map((call) => ({ type: "function_call_output", call_id: call.call_id, output: "ok" }))
            : [{ role: "user", content: "Go on." }]),
        ] as OpenAI.Responses.ResponseInput,
        ...(tools.length > 0 && {
          tools: tools.map((name) => ({ type: "function" as const, name, parameters, strict: false })),
        }),
      });
      return;
    }
    case "Anthropic Messages": {
      const content = reply.content as Loose[];
      const calls = content.filter((block) => block.type === "tool_use");
      await clients.anthropic.messages.create({
        model: ask.model,
        max_tokens: 4096,
        messages: [
          { role: "user", content: ask.prompt },
          { role: "assistant", content: content as Anthropic.ContentBlockParam[] },
          {
            role: "user",
            content:
              calls.length > 0
                ? calls.map((call) => ({ type: "tool_result" as const, tool_use_id: call.id, content: "ok" }))
                : "Go on.",
          },
        ],
        ...(tools.length > 0 && {
          tools: tools.map((name) => ({ name, input_schema: parameters as Anthropic.Tool["input_schema"] })),
        }),
      });
      return;
    }
    case "Gemini": {
      const turn = reply.candidates[0].content as Loose;
      const calls = (turn.parts as Loose[]).filter((part) => part.functionCall).map((part) => part.functionCall);
      await clients.gemini.models.generateContent({
        model: ask.model,
        contents: [
          { role: "user", parts: [{ text: ask.prompt }] },
          turn,
          {
            role: "user",
            parts:
              calls.length > 0
                ? calls.map((call) => ({
                    functionResponse: { id: call.id, name: call.name, response: { result: "ok" } },
                  }))
                : [{ text: "Go on." }],
          },
        ],
        config: {
          ...(tools.length > 0 && {
            tools: [{ functionDeclarations: tools.map((name) => ({ name, parametersJsonSchema: parameters })) }],
          }),
        },
      });
      return;
    }
  }
}

export interface ErrorSeen {
  status: number;
  /** The wait the client was told: retry-after-ms, retry-after (seconds), Google's RetryInfo. */
  retryAfterMs?: number;
  retryAfterSeconds?: number;
}

/** What a client saw of a gateway error, through any of the three SDKs. */
export function errorSeen(error: unknown): ErrorSeen {
  if (error instanceof OpenAI.APIError || error instanceof Anthropic.APIError) {
    const headers = error.headers as Headers | undefined;
    const ms = headers?.get("retry-after-ms");
    const seconds = headers?.get("retry-after");
    return {
      status: error.status ?? 0,
      ...(ms && { retryAfterMs: Number(ms) }),
      ...(seconds && { retryAfterSeconds: Number(seconds) }),
    };
  }
  const status = (error as { status?: number }).status;
  if (typeof status !== "number") throw error;
  // @google/genai puts the error body in its message.
  const message = String((error as Error).message);
  const body = JSON.parse(message.slice(message.indexOf("{"))) as Loose;
  const retryInfo = ((body.error?.details ?? []) as Loose[]).find((detail) =>
    String(detail["@type"]).endsWith("google.rpc.RetryInfo"),
  );
  const delay = /^(\d+(?:\.\d+)?)s$/.exec(String(retryInfo?.retryDelay));
  return { status, ...(delay && { retryAfterSeconds: Number(delay[1]) }) };
}
