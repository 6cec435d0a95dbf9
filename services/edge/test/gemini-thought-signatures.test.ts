import Anthropic from "@anthropic-ai/sdk";
import type { MessageParam, Tool, ToolUseBlock } from "@anthropic-ai/sdk/resources/messages";
import { type SimulatedRequest, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import { type Content, GoogleGenAI, type Part, Type } from "@google/genai";
import OpenAI from "openai";
import type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Gemini 3 tool loops through every ingress with its official SDK. A gemini-3.x model signs its
// function calls (thoughtSignature) and refuses, with Google's 400, a follow-up whose call came
// back without its signature; the simulator does the same. Each loop runs twice (ask, call,
// result, answer), so the second round also replays the first round's signed call.

const model = "gemini-3-flash";
let stack: TestStack;
let openai: OpenAI;
let anthropic: Anthropic;
let gemini: GoogleGenAI;

beforeAll(async () => {
  stack = await startTestStack();
  const apiKey = (await stack.createAccount({ group: "premium" })).api_key;
  openai = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
  const origin = new URL(stack.baseUrl).origin;
  anthropic = new Anthropic({ baseURL: origin, apiKey, maxRetries: 0 });
  gemini = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: origin, apiVersion: "v1beta" } });
});
afterAll(async () => {
  await stack?.teardown();
});

const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const chatTools: ChatCompletionTool[] = [{ type: "function", function: { name: "get_weather", parameters } }];
const responseTools: OpenAI.Responses.FunctionTool[] = [
  { type: "function", name: "get_weather", parameters, strict: false },
];
const messageTools: Tool[] = [
  { name: "get_weather", input_schema: { type: "object", properties: parameters.properties } },
];
const geminiTools = [
  {
    functionDeclarations: [
      { name: "get_weather", parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } },
    ],
  },
];

const ask = (marker: string, round: number) => `${marker} weather, round ${round}`;
const answered = /^Received tool result: sunny/;
const rounds = [1, 2];

/** What a loop showed the client of each round's call: the call id, or Gemini's own signature. */
type Loop = (marker: string, stream: boolean) => Promise<string[]>;

const chatLoop: Loop = async (marker, stream) => {
  const messages: ChatCompletionMessageParam[] = [];
  const complete = async (): Promise<ChatCompletionMessage> => {
    const request = { model, messages, tools: chatTools };
    const completion = stream
      ? await openai.chat.completions.stream(request).finalChatCompletion()
      : await openai.chat.completions.create(request);
    return completion.choices[0]!.message;
  };
  const ids: string[] = [];
  for (const round of rounds) {
    messages.push({ role: "user", content: ask(marker, round) });
    const turn = await complete();
    const call = turn.tool_calls![0]!;
    if (call.type !== "function") throw new Error("expected a function call");
    ids.push(call.id);
    // Rebuilt from the fields a client keeps, the way agents store a turn: the id is what carries.
    const replayed = { id: call.id, type: "function" as const, function: call.function };
    messages.push({ role: "assistant", content: turn.content, tool_calls: [replayed] });
    messages.push({ role: "tool", tool_call_id: call.id, content: "sunny" });
    const answer = await complete();
    expect(answer.content).toMatch(answered);
    messages.push({ role: "assistant", content: answer.content });
  }
  return ids;
};

/** Not streamed: the client carries the conversation in `input`; streamed: previous_response_id. */
const responsesLoop: Loop = async (marker, stream) => {
  const input: ResponseInputItem[] = [];
  let previous: string | undefined;
  const respond = async (items: ResponseInputItem[]) => {
    if (!stream) {
      input.push(...items);
      const response = await openai.responses.create({ model, input, tools: responseTools, store: false });
      input.push(...(response.output as ResponseInputItem[]));
      return response;
    }
    const request = { model, input: items, tools: responseTools, previous_response_id: previous };
    const response = await openai.responses.stream(request).finalResponse();
    previous = response.id;
    return response;
  };
  const ids: string[] = [];
  for (const round of rounds) {
    const turn = await respond([{ role: "user", content: ask(marker, round) }]);
    const call = turn.output.find((item) => item.type === "function_call");
    if (call?.type !== "function_call") throw new Error("expected a function call");
    ids.push(call.call_id);
    const answer = await respond([{ type: "function_call_output", call_id: call.call_id, output: "sunny" }]);
    expect(answer.output_text).toMatch(answered);
  }
  return ids;
};

const messagesLoop: Loop = async (marker, stream) => {
  const messages: MessageParam[] = [];
  const create = () => {
    const request = { model, max_tokens: 200, messages, tools: messageTools };
    return stream ? anthropic.messages.stream(request).finalMessage() : anthropic.messages.create(request);
  };
  const ids: string[] = [];
  for (const round of rounds) {
    messages.push({ role: "user", content: ask(marker, round) });
    const turn = await create();
    const call = turn.content.find((block): block is ToolUseBlock => block.type === "tool_use")!;
    ids.push(call.id);
    messages.push({ role: "assistant", content: turn.content });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny" }] });
    const answer = await create();
    expect(answer.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(answered) });
    messages.push({ role: "assistant", content: answer.content });
  }
  return ids;
};

/** The model turn as the client keeps it; streamed, the parts of every event in order. */
const geminiLoop: Loop = async (marker, stream) => {
  const contents: Content[] = [];
  const generate = async (): Promise<Content> => {
    const request = { model, contents, config: { tools: geminiTools } };
    if (!stream) return (await gemini.models.generateContent(request)).candidates![0]!.content!;
    const parts: Part[] = [];
    for await (const event of await gemini.models.generateContentStream(request)) {
      parts.push(...(event.candidates?.[0]?.content?.parts ?? []));
    }
    return { role: "model", parts };
  };
  const signatures: string[] = [];
  for (const round of rounds) {
    contents.push({ role: "user", parts: [{ text: ask(marker, round) }] });
    const turn = await generate();
    const call = turn.parts!.find((part) => part.functionCall)!;
    signatures.push(call.thoughtSignature!);
    const result = { id: call.functionCall!.id, name: "get_weather", response: { result: "sunny" } };
    contents.push(turn, { role: "user", parts: [{ functionResponse: result }] });
    const answer = await generate();
    expect(answer.parts!.map((part) => part.text ?? "").join("")).toMatch(answered);
    // The answer's text is signed too (on an empty closing part when streamed), and goes back with it.
    expect(answer.parts!.some((part) => part.text !== undefined && part.thoughtSignature)).toBe(true);
    contents.push(answer);
  }
  return signatures;
};

/** Our simulated Gemini's signature: base64 with + and / and = padding, restored exactly. */
const simulatedSignature = /^\+\+\+\+\/\/\/\/[A-Za-z0-9+/]+==$/;

async function upstreamWith(marker: string): Promise<SimulatedRequest[]> {
  const requests = await simulatorRequests(stack.simulatorUrl);
  return requests.filter(
    (request) => request.path.startsWith(`/v1beta/models/${model}:`) && JSON.stringify(request.body).includes(marker),
  );
}

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the upstream bodies' shape
type Body = any;

const modelParts = (request: SimulatedRequest): Body[] =>
  (request.body as Body).contents
    .filter((content: Body) => content.role === "model")
    .flatMap((content: Body) => content.parts);

const ingresses: [string, Loop, RegExp][] = [
  ["OpenAI chat", chatLoop, /^call_[0-9a-f]{24}__thought__[A-Za-z0-9_-]+$/],
  ["OpenAI Responses", responsesLoop, /^call_[0-9a-f]{24}__thought__[A-Za-z0-9_-]+$/],
  // Anthropic's rule for tool_use ids: ^[a-zA-Z0-9_-]+$.
  ["Anthropic Messages", messagesLoop, /^call_[0-9a-f]{24}__thought__[a-zA-Z0-9_-]+$/],
  ["Gemini", geminiLoop, simulatedSignature],
];

describe.each(ingresses)("a Gemini 3 tool loop through %s", (ingress, loop, shown) => {
  it.each([false, true])("carries each call's thought signature across turns (streamed: %s)", async (stream) => {
    const marker = `signatures ${ingress} ${stream}`;
    const shownToClient = await loop(marker, stream);
    expect(shownToClient).toHaveLength(2);
    for (const value of shownToClient) expect(value).toMatch(shown);
    // Each round's call has an id of its own, so a client pairing results by id is never in doubt.
    if (ingress !== "Gemini") expect(new Set(shownToClient).size).toBe(2);

    const upstream = await upstreamWith(marker);
    expect(upstream.map((request) => request.status)).toEqual([200, 200, 200, 200]);
    // Every call replayed to Gemini, this round's and the earlier one's, has its signature back.
    for (const request of upstream) {
      const calls = modelParts(request).filter((part) => part.functionCall);
      for (const call of calls) expect(call.thoughtSignature).toMatch(simulatedSignature);
    }
    expect(modelParts(upstream[3]!).filter((part) => part.functionCall)).toHaveLength(2);
    // Text signatures have a native carrier only on the Gemini ingress; Google does not require them.
    const signedText = modelParts(upstream[3]!).some((part) => part.text !== undefined && part.thoughtSignature);
    expect(signedText).toBe(ingress === "Gemini");
  });
});
