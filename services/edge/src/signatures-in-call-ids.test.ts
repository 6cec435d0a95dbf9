import type { ChatChunk, ChatRequest } from "@gateway/proto/router/v1/chat";
import { describe, expect, it } from "vitest";
import {
  chunkSignaturesIntoCallIds,
  idWithSignature,
  signaturesFromCallIds,
  signaturesIntoCallIds,
  splitCallId,
} from "./signatures-in-call-ids.js";

// Base64 with every character a plain id may not hold: + / and = padding.
const signature = "++++////CiQBjz1rX2sZ+Qy/Ab==";

describe("thought signatures carried in call ids", () => {
  it("shows a signed call's id in Anthropic's id charset and restores Google's base64 exactly", () => {
    const id = idWithSignature("call_0", signature);
    expect(id).toBe("call_0__thought__----____CiQBjz1rX2sZ-Qy_Ab");
    expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(splitCallId(id)).toEqual({ id: "call_0", thoughtSignature: signature });
    for (const unpadded of ["YWJj", "YWJjZA==", "YWJjZGU="]) {
      expect(splitCallId(idWithSignature("c", unpadded)).thoughtSignature).toBe(unpadded);
    }
  });

  it("leaves unsigned ids as they are", () => {
    expect(idWithSignature("toolu_01A", undefined)).toBe("toolu_01A");
    expect(splitCallId("toolu_01A")).toEqual({ id: "toolu_01A" });
    expect(splitCallId("call_0__thought__")).toEqual({ id: "call_0", thoughtSignature: undefined });
  });

  it("takes the signature out of a replayed call and the tool result naming it", () => {
    const carried = idWithSignature("call_0", signature);
    const request = {
      messages: [
        { role: "user", text: "weather", parts: [], toolCalls: [] },
        {
          role: "assistant",
          parts: [],
          toolCalls: [
            { id: carried, name: "get_weather", arguments: "{}" },
            { id: "call_1", name: "get_time", arguments: "{}" },
          ],
        },
        { role: "tool", text: "sunny", parts: [], toolCalls: [], toolCallId: carried },
        { role: "tool", text: "noon", parts: [], toolCalls: [], toolCallId: "call_1" },
      ],
    } as unknown as ChatRequest;
    const [, assistant, weather, time] = signaturesFromCallIds(request).messages;
    expect(assistant!.toolCalls).toEqual([
      { id: "call_0", name: "get_weather", arguments: "{}", thoughtSignature: signature },
      { id: "call_1", name: "get_time", arguments: "{}", thoughtSignature: undefined },
    ]);
    expect([weather!.toolCallId, time!.toolCallId]).toEqual(["call_0", "call_1"]);
  });

  it("puts each signed call's signature in the id of answers and stream fragments", () => {
    const completion = signaturesIntoCallIds({
      id: "",
      created: 0,
      model: "m",
      usage: undefined,
      choices: [
        {
          index: 0,
          finishReason: "tool_calls",
          message: {
            toolCalls: [
              { id: "call_0", name: "a", arguments: "{}", thoughtSignature: signature },
              { id: "call_1", name: "b", arguments: "{}" },
            ],
            thinkingBlocks: [],
          },
        },
      ],
    });
    expect(completion.choices[0]!.message!.toolCalls.map((call) => call.id)).toEqual([
      idWithSignature("call_0", signature),
      "call_1",
    ]);
    const fragment = { index: 0, id: "call_0", name: "a", arguments: "{}", thoughtSignature: signature };
    const chunk: ChatChunk = {
      id: "",
      created: 0,
      model: "m",
      choices: [{ index: 0, delta: { toolCalls: [fragment] } }],
    };
    expect(chunkSignaturesIntoCallIds(chunk).choices[0]!.delta!.toolCalls[0]!.id).toBe(
      idWithSignature("call_0", signature),
    );
    const plain: ChatChunk = { ...chunk, choices: [{ index: 0, delta: { content: "hi", toolCalls: [] } }] };
    expect(chunkSignaturesIntoCallIds(plain)).toBe(plain);
  });
});
