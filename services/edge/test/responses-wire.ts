import { readFileSync } from "node:fs";
import { responseErrors, responseStreamEventErrors } from "@gateway/openai-spec";
import { expect } from "vitest";

// POST /v1/responses as raw HTTP, so a test sees the headers and every SSE frame exactly as
// sent, each held to OpenAI's published schema.

export interface StreamedResponse {
  status: number;
  headers: Headers;
  events: { type: string; [field: string]: unknown }[];
}

const post = (baseUrl: string, apiKey: string, body: unknown) =>
  fetch(`${baseUrl}/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

/** A streamed answer's events; each frame's `event:` must name its data's type, and each must conform. */
export async function streamResponse(baseUrl: string, apiKey: string, body: object): Promise<StreamedResponse> {
  const response = await post(baseUrl, apiKey, { ...body, stream: true });
  const text = await response.text();
  if (response.status !== 200)
    return { status: response.status, headers: response.headers, events: [JSON.parse(text)] };
  const events = text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const name = /^event: (.*)$/m.exec(frame)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]!) as StreamedResponse["events"][number];
      expect(name).toBe(data.type);
      return data;
    });
  expect(events.flatMap((event) => responseStreamEventErrors(event).map((error) => `${event.type}: ${error}`))).toEqual(
    [],
  );
  return { status: response.status, headers: response.headers, events };
}

/** A JSON answer; a 200 must be a conforming Response. */
export async function createResponse(
  baseUrl: string,
  apiKey: string,
  body: object,
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await post(baseUrl, apiKey, body);
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status === 200) expect(responseErrors(json)).toEqual([]);
  return { status: response.status, headers: response.headers, body: json };
}

/** The response a stream completed with. */
export function completedResponse(streamed: StreamedResponse) {
  const last = streamed.events.at(-1)!;
  expect(last.type).toBe("response.completed");
  return last.response as { output: { type: string; call_id?: string; [field: string]: unknown }[] };
}

/** A request body Codex CLI sent, as captured (fixtures/codex/README.md). */
export const codexCapture = (name: "turn-1-gpt-5" | "turn-1-default-model") =>
  JSON.parse(readFileSync(new URL(`fixtures/codex/${name}.json`, import.meta.url), "utf8")) as {
    input: Record<string, unknown>[];
    [field: string]: unknown;
  };
