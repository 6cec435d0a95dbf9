import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../server.js";

let simulator: Simulator;
const headers = { authorization: "Bearer sk-test-key", "content-type": "application/json" };

beforeAll(async () => {
  simulator = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await simulator.close();
});

const post = (body: unknown) =>
  fetch(`${simulator.url}/v1/responses`, { method: "POST", headers, body: JSON.stringify(body) });

// biome-ignore lint/suspicious/noExplicitAny: the assertions themselves check the shape of response bodies
const json = async (response: Response): Promise<any> => response.json();

const tools = [
  { type: "function", name: "shell", parameters: { type: "object", properties: { command: { type: "string" } } } },
  { type: "custom", name: "apply_patch", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } },
  { type: "web_search" },
];
const reasoning = { effort: "low", summary: "auto" };

function events(text: string) {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const [name, data] = block.split("\n");
      return { name: name!.slice("event: ".length), data: JSON.parse(data!.slice("data: ".length)) };
    });
}

describe("the simulator's Responses API", () => {
  it("answers a function call and a custom tool call, after a sealed reasoning item", async () => {
    const answer = await post({
      model: "gpt-5.3-codex",
      input: "fix the build",
      tools,
      reasoning,
      include: ["reasoning.encrypted_content"],
      store: false,
    });
    expect(answer.status).toBe(200);
    const body = await json(answer);
    expect(body).toMatchObject({ object: "response", status: "completed", model: "gpt-5.3-codex", store: false });
    const [thought, call, custom] = body.output;
    expect(thought).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text" }] });
    expect(thought.encrypted_content).toMatch(/^gAAAAAB/);
    expect(call).toMatchObject({ type: "function_call", name: "shell", status: "completed" });
    expect(JSON.parse(call.arguments)).toBeTypeOf("object");
    expect(custom).toMatchObject({
      type: "custom_tool_call",
      name: "apply_patch",
      input: "Simulated input for apply_patch",
    });
    expect(body.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(body.usage.output_tokens).toBeGreaterThan(body.usage.output_tokens_details.reasoning_tokens);
  });

  it("takes its own reasoning item back on the next turn and refuses one that was altered", async () => {
    const first = await json(
      await post({ model: "gpt-5", input: "think", reasoning, include: ["reasoning.encrypted_content"] }),
    );
    const thought = first.output[0];
    const next = (item: unknown) =>
      post({ model: "gpt-5", input: [{ role: "user", content: "think" }, item, { role: "user", content: "more" }] });
    expect((await next(thought)).status).toBe(200);
    const altered = await next({ ...thought, encrypted_content: `${thought.encrypted_content.slice(0, -2)}xx` });
    expect(altered.status).toBe(400);
    expect((await json(altered)).error).toMatchObject({
      code: "invalid_encrypted_content",
      type: "invalid_request_error",
    });
  });

  it("streams every event named and numbered in order, ending with response.completed", async () => {
    const answer = await post({ model: "gpt-5", input: "hello", stream: true, reasoning });
    expect(answer.headers.get("content-type")).toContain("text/event-stream");
    const streamed = events(await answer.text());
    expect(streamed.map((event) => event.data.sequence_number)).toEqual(streamed.map((_, index) => index));
    for (const event of streamed) expect(event.data.type).toBe(event.name);
    const names = streamed.map((event) => event.name);
    expect(names.slice(0, 3)).toEqual(["response.created", "response.in_progress", "response.output_item.added"]);
    expect(names).toContain("response.reasoning_summary_text.delta");
    expect(names).toContain("response.output_text.delta");
    expect(names.at(-1)).toBe("response.completed");
    const text = streamed
      .filter((event) => event.name === "response.output_text.delta")
      .map((event) => event.data.delta);
    expect(streamed.at(-1)!.data.response.output.at(-1).content[0].text).toBe(text.join(""));
  });

  it("answers structured output that fits the json_schema of text.format", async () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const format = { type: "json_schema", name: "place", schema, strict: true };
    const body = await json(await post({ model: "gpt-5", input: "where?", text: { format } }));
    expect(JSON.parse(body.output[0].content[0].text)).toHaveProperty("city");
  });

  it("answers a length cut as an incomplete response", async () => {
    const body = await json(await post({ model: "gpt-5", input: "long [sim:tokens=50]", max_output_tokens: 16 }));
    expect(body).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
  });

  it("refuses a request without input in OpenAI's error shape", async () => {
    const answer = await post({ model: "gpt-5" });
    expect(answer.status).toBe(400);
    expect(await json(answer)).toEqual({
      error: {
        message: "Missing required parameter: 'input'.",
        type: "invalid_request_error",
        param: "input",
        code: "missing_required_parameter",
      },
    });
  });
});
