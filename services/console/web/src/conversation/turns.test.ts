import { describe, expect, it } from "vitest";
import { answerTurns, requestTurns, toolsOffered } from "./turns.js";

describe("requestTurns for chat messages as the request log keeps them", () => {
  it("keeps each message's role and text", () => {
    const turns = requestTurns({
      messages: [
        { role: "system", content: "You check configuration files." },
        { role: "user", content: "Is this line right?" },
      ],
    });
    expect(turns).toEqual([
      { role: "system", origin: "request", parts: [{ kind: "text", text: "You check configuration files." }] },
      { role: "user", origin: "request", parts: [{ kind: "text", text: "Is this line right?" }] },
    ]);
  });

  it("shows image parts as images beside the text", () => {
    const [turn] = requestTurns({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,[… 120 bytes]", detail: "auto" } },
          ],
        },
      ],
    });
    expect(turn?.parts).toEqual([
      { kind: "text", text: "What is this?" },
      { kind: "image", url: "data:image/png;base64,[… 120 bytes]" },
    ]);
  });

  it("shows an assistant's tool calls and the tool's results with their call ids", () => {
    const turns = requestTurns({
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' }],
        },
        { role: "tool", content: '{"temp":21}', tool_call_id: "call_1" },
      ],
      tools: ["get_weather"],
    });
    expect(turns[1]).toEqual({
      role: "assistant",
      origin: "request",
      parts: [{ kind: "toolCall", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' }],
    });
    expect(turns[2]).toEqual({
      role: "tool",
      origin: "request",
      parts: [{ kind: "toolResult", callId: "call_1", text: '{"temp":21}' }],
    });
  });

  it("reads tool calls in OpenAI's nested function shape too", () => {
    const [turn] = requestTurns({
      messages: [
        {
          role: "assistant",
          tool_calls: [{ id: "c", type: "function", function: { name: "get_time", arguments: "{}" } }],
        },
      ],
    });
    expect(turn?.parts).toEqual([{ kind: "toolCall", id: "c", name: "get_time", arguments: "{}" }]);
  });
});

describe("requestTurns for other endpoints", () => {
  it("maps Responses input items: instructions, messages, function calls and their outputs", () => {
    const turns = requestTurns({
      instructions: "Be brief.",
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "Hi" },
            { type: "input_image", image_url: "https://x/y.png" },
          ],
        },
        { type: "function_call", call_id: "fc_1", name: "lookup", arguments: '{"q":"a"}' },
        { type: "function_call_output", call_id: "fc_1", output: "found" },
      ],
    });
    expect(turns.map((turn) => turn.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(turns[1]?.parts).toEqual([
      { kind: "text", text: "Hi" },
      { kind: "image", url: "https://x/y.png" },
    ]);
    expect(turns[2]?.parts).toEqual([{ kind: "toolCall", id: "fc_1", name: "lookup", arguments: '{"q":"a"}' }]);
    expect(turns[3]?.parts).toEqual([{ kind: "toolResult", callId: "fc_1", text: "found" }]);
  });

  it("treats a plain input string or completion prompts as the user's words", () => {
    expect(requestTurns({ input: "Hello" })).toEqual([
      { role: "user", origin: "request", parts: [{ kind: "text", text: "Hello" }] },
    ]);
    expect(requestTurns({ prompt: ["one", "two"] }).map((turn) => turn.parts)).toEqual([
      [{ kind: "text", text: "one" }],
      [{ kind: "text", text: "two" }],
    ]);
  });

  it("keeps a request it does not recognise as data, and a cut-off body as text", () => {
    expect(requestTurns({ file: { filename: "a.wav" } })).toEqual([
      { role: "request", origin: "request", parts: [{ kind: "data", value: { file: { filename: "a.wav" } } }] },
    ]);
    expect(requestTurns('{"messages":[{"role":"us')[0]?.parts).toEqual([
      { kind: "text", text: '{"messages":[{"role":"us' },
    ]);
    expect(requestTurns(null)).toEqual([]);
  });
});

describe("answerTurns", () => {
  it("maps the log's compact choices with text, tool calls and finish reason", () => {
    const turns = answerTurns({
      choices: [
        { index: 0, content: "Hello!", finish_reason: "stop" },
        {
          index: 1,
          content: null,
          tool_calls: [{ id: "t", name: "get_weather", arguments: "{}" }],
          finish_reason: "tool_calls",
        },
      ],
    });
    expect(turns).toEqual([
      { role: "assistant", origin: "answer", parts: [{ kind: "text", text: "Hello!" }], finishReason: "stop" },
      {
        role: "assistant",
        origin: "answer",
        parts: [{ kind: "toolCall", id: "t", name: "get_weather", arguments: "{}" }],
        finishReason: "tool_calls",
      },
    ]);
  });

  it("shows a reasoner's thinking as a reasoning turn ahead of its answer, in answers and in history", () => {
    const reasoning = { role: "reasoning", origin: "answer", parts: [{ kind: "text", text: "Let me think." }] };
    expect(
      answerTurns({
        choices: [{ index: 0, content: "42", reasoning_content: "Let me think.", finish_reason: "stop" }],
      }),
    ).toEqual([
      reasoning,
      { role: "assistant", origin: "answer", parts: [{ kind: "text", text: "42" }], finishReason: "stop" },
    ]);
    const history = requestTurns({
      messages: [{ role: "assistant", content: "42", reasoning_content: "Let me think." }],
    });
    expect(history.map((turn) => turn.role)).toEqual(["reasoning", "assistant"]);
  });

  it("maps OpenAI's own chat and completion answer shapes", () => {
    expect(
      answerTurns({ choices: [{ message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }] }),
    ).toEqual([{ role: "assistant", origin: "answer", parts: [{ kind: "text", text: "Hi" }], finishReason: "stop" }]);
    expect(answerTurns({ choices: [{ text: "done" }] })[0]?.parts).toEqual([{ kind: "text", text: "done" }]);
  });

  it("maps Responses output items", () => {
    const turns = answerTurns({
      output: [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Sure." }] },
        { type: "function_call", call_id: "fc", name: "f", arguments: "{}" },
      ],
    });
    expect(turns.map((turn) => turn.parts)).toEqual([
      [{ kind: "text", text: "Sure." }],
      [{ kind: "toolCall", id: "fc", name: "f", arguments: "{}" }],
    ]);
  });

  it("shows a transcript's text and keeps summaries such as embeddings as data", () => {
    expect(answerTurns({ content_type: "text/plain", text: "hello world" })[0]?.parts).toEqual([
      { kind: "text", text: "hello world" },
    ]);
    expect(answerTurns({ embeddings: 2, dimensions: 1536 })[0]?.parts).toEqual([
      { kind: "data", value: { embeddings: 2, dimensions: 1536 } },
    ]);
    expect(answerTurns(null)).toEqual([]);
  });
});

describe("toolsOffered", () => {
  it("lists tool names from the log's names or OpenAI's tool objects", () => {
    expect(toolsOffered({ tools: ["get_weather"] })).toEqual(["get_weather"]);
    expect(toolsOffered({ tools: [{ type: "function", function: { name: "f" } }] })).toEqual(["f"]);
    expect(toolsOffered({ messages: [] })).toEqual([]);
  });
});
