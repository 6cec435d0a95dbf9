import { clearSimulatorRequests, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import fc from "fast-check";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Property: whatever malformed body a client throws at any endpoint (JSON or multipart), the
// answer is a 4xx with OpenAI's error body, nothing reaches a vendor, and every process stays up.

let stack: TestStack;
let apiKey: string;

beforeAll(async () => {
  stack = await startTestStack();
  apiKey = (await stack.createAccount({ group: "premium" })).api_key;
  await clearSimulatorRequests(stack.simulatorUrl);
});
afterAll(async () => {
  await stack?.teardown();
});

type Check = (value: unknown) => boolean;
const isNumberIn =
  (low: number, high: number): Check =>
  (value) =>
    typeof value === "number" && value >= low && value <= high;
const isIntegerIn =
  (low: number, high: number): Check =>
  (value) =>
    Number.isInteger(value) && (value as number) >= low && (value as number) <= high;
const isString: Check = (value) => typeof value === "string";
const isStrings =
  (most: number): Check =>
  (value) =>
    Array.isArray(value) && value.length <= most && value.every(isString);
const either =
  (...checks: Check[]): Check =>
  (value) =>
    checks.some((check) => check(value));
const nullOr = (check: Check): Check => either((value) => value === null, check);
// Generous on purpose: anything that might pass is left out, so every case is surely malformed.
const isArrayOfObjects: Check = (value) =>
  Array.isArray(value) && value.some((item) => typeof item === "object" && item !== null);
const isOneOf =
  (...values: unknown[]): Check =>
  (value) =>
    values.includes(value);
const isArray: Check = (value) => Array.isArray(value);
const isBoolean: Check = (value) => typeof value === "boolean";
const isTokens: Check = (value) =>
  Array.isArray(value) && value.every((item) => Number.isInteger(item) || Array.isArray(item));

interface Endpoint {
  path: string;
  valid: Record<string, unknown>;
  // For each field, what a value that might be accepted looks like.
  accepts: Record<string, Check>;
  // Fields it does not interpret are taken, not refused (Responses: coding agents add fields monthly).
  takesUnknownFields?: true;
}

const endpoints: Endpoint[] = [
  {
    path: "/chat/completions",
    valid: { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }] },
    accepts: {
      model: isString,
      messages: isArrayOfObjects,
      temperature: nullOr(isNumberIn(0, 2)),
      top_p: nullOr(isNumberIn(0, 1)),
      max_tokens: nullOr(isIntegerIn(1, Number.MAX_SAFE_INTEGER)),
      n: nullOr(isIntegerIn(1, 128)),
      stop: nullOr(either(isString, isStrings(4))),
      stream: nullOr((value) => typeof value === "boolean"),
      seed: nullOr(Number.isInteger),
      presence_penalty: nullOr(isNumberIn(-2, 2)),
      tools: isArray,
      user: isString,
    },
  },
  {
    path: "/completions",
    valid: { model: "gpt-4o-mini", prompt: "hi" },
    accepts: {
      model: isString,
      prompt: either(isString, isStrings(32), isTokens),
      temperature: nullOr(isNumberIn(0, 2)),
      max_tokens: nullOr(isIntegerIn(1, Number.MAX_SAFE_INTEGER)),
      n: nullOr(isIntegerIn(1, 128)),
      echo: nullOr((value) => typeof value === "boolean"),
      stop: nullOr(either(isString, isStrings(4))),
      suffix: (value) => value === null || value === "",
      best_of: nullOr(isIntegerIn(0, 1)),
      logprobs: (value) => value === null || value === 0,
    },
  },
  {
    path: "/embeddings",
    valid: { model: "text-embedding-3-small", input: "hi" },
    accepts: {
      model: isString,
      input: either(isString, isStrings(2048), isTokens),
      encoding_format: nullOr((value) => value === "float" || value === "base64"),
      dimensions: nullOr(isIntegerIn(1, 1536)),
      user: isString,
    },
  },
  {
    path: "/images/generations",
    valid: { model: "imagen-4.0-fast-generate-001", prompt: "a lighthouse" },
    accepts: {
      model: isString,
      prompt: isString,
      n: nullOr(isIntegerIn(1, 1)),
      size: nullOr(isOneOf("1024x1024", "1792x1024", "1024x1792")),
      quality: nullOr(isOneOf("standard", "hd")),
      response_format: nullOr(isOneOf("url", "b64_json")),
      style: nullOr(isOneOf("vivid", "natural")),
    },
  },
  {
    path: "/responses",
    // A model served translated onto chat, whose schema is the gateway's; OpenAI's models are relayed
    // with the fields the gateway does not know (responses-relay.test.ts).
    valid: { model: "qwen-plus", input: "hi" },
    accepts: {
      model: isString,
      input: either(isString, isArrayOfObjects),
      instructions: nullOr(isString),
      temperature: nullOr(isNumberIn(0, 2)),
      top_p: nullOr(isNumberIn(0, 1)),
      max_output_tokens: nullOr(isIntegerIn(1, Number.MAX_SAFE_INTEGER)),
      stream: nullOr(isBoolean),
      store: nullOr(isBoolean),
      tools: isArray,
    },
    takesUnknownFields: true,
  },
  {
    path: "/videos/generations",
    valid: { model: "sora-2", prompt: "a paper boat", async: true },
    accepts: {
      model: isString,
      prompt: isString,
      duration: nullOr(isOneOf(5, 10, 15, 20)),
      async: isOneOf(true),
    },
  },
];

/** Bodies that are not JSON: a valid request cut short, or arbitrary text that does not parse to an object. */
const malformedText = (endpoint: Endpoint) =>
  fc.oneof(
    fc.nat().map((cut) => {
      const text = JSON.stringify(endpoint.valid);
      return text.slice(0, cut % text.length);
    }),
    fc.string().filter((text) => {
      try {
        const parsed: unknown = JSON.parse(text);
        return typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("model" in parsed);
      } catch {
        return true;
      }
    }),
  );

/** A valid request with one field set to a value of the wrong type or range. */
const wrongField = (endpoint: Endpoint) =>
  fc.constantFrom(...Object.keys(endpoint.accepts)).chain((field) =>
    fc
      .jsonValue()
      .filter((value) => !endpoint.accepts[field]!(value))
      .map((value) => JSON.stringify({ ...endpoint.valid, [field]: value })),
  );

/** A valid request with an unknown field (where unknown fields are refused), or a random object without a model. */
const strayObject = (endpoint: Endpoint) => {
  const withoutModel = fc
    .dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 })
    .filter((object) => !Object.hasOwn(object, "model"))
    .map((object) => JSON.stringify(object));
  if (endpoint.takesUnknownFields) return withoutModel;
  return fc.oneof(
    fc
      .tuple(fc.string(), fc.jsonValue())
      .map(([key, value]) => JSON.stringify({ ...endpoint.valid, [`x_unknown_${key}`]: value })),
    withoutModel,
  );
};

const multipartEndpoints = [
  { path: "/images/edits", fields: ["model", "prompt", "n", "size", "response_format"], files: ["image", "mask"] },
  {
    path: "/audio/transcriptions",
    fields: ["model", "language", "prompt", "response_format", "temperature"],
    files: ["file"],
  },
];

/** Form bodies that cannot be valid: garbage under a multipart type, or parts whose files are not media at all. */
const malformedForm = (endpoint: (typeof multipartEndpoints)[number]) =>
  fc.oneof(
    fc
      .tuple(fc.string(), fc.string())
      .map(([boundary, body]) => ({ contentType: `multipart/form-data; boundary=${boundary}`, body })),
    fc
      .tuple(
        fc.dictionary(fc.constantFrom(...endpoint.fields, "junk"), fc.string(), { maxKeys: 5 }),
        fc.subarray(endpoint.files),
        // Plain text, so it can never carry a PNG, WAV or MP3 signature.
        fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz0123456789 \n") }),
        fc.constantFrom("a.png", "b.wav", "c.mp3", "d.txt", "noextension"),
      )
      .map(([values, files, content, filename]) => {
        const boundary = "gwboundary";
        const parts = [
          ...Object.entries(values).map(
            ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
          ),
          ...files.map(
            (name) =>
              `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n`,
          ),
        ];
        return {
          contentType: `multipart/form-data; boundary=${boundary}`,
          body: `${parts.join("")}--${boundary}--\r\n`,
        };
      }),
  );

async function send(path: string, body: string, contentType = "application/json") {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": contentType },
    body,
  });
  return { status: response.status, text: await response.text() };
}

function expectOpenAIClientError(answer: { status: number; text: string }, body: string) {
  const context = `${answer.status} for ${body.slice(0, 200)}: ${answer.text.slice(0, 200)}`;
  expect(answer.status >= 400 && answer.status < 500, context).toBe(true);
  const parsed = JSON.parse(answer.text) as { error: Record<string, unknown> };
  expect(Object.keys(parsed), context).toEqual(["error"]);
  expect(Object.keys(parsed.error).sort(), context).toEqual(["code", "message", "param", "type"]);
  const { message, type, param, code } = parsed.error;
  expect(typeof message === "string" && message.length > 0, context).toBe(true);
  expect(typeof type, context).toBe("string");
  expect(param === null || typeof param === "string", context).toBe(true);
  expect(code === null || typeof code === "string", context).toBe(true);
}

describe("malformed input never breaks the gateway", () => {
  for (const endpoint of endpoints) {
    it(`answers every malformed body on ${endpoint.path} with an OpenAI 4xx`, { timeout: 60_000 }, async () => {
      const bodies = fc.oneof(malformedText(endpoint), wrongField(endpoint), strayObject(endpoint));
      await fc.assert(
        fc.asyncProperty(bodies, async (body) => {
          expectOpenAIClientError(await send(endpoint.path, body), body);
        }),
        { numRuns: 150 },
      );
    });
  }

  for (const endpoint of multipartEndpoints) {
    it(`answers every malformed form on ${endpoint.path} with an OpenAI 4xx`, { timeout: 60_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(malformedForm(endpoint), async ({ contentType, body }) => {
          expectOpenAIClientError(await send(endpoint.path, body, contentType), body);
        }),
        { numRuns: 100 },
      );
    });
  }

  it("let nothing reach a vendor, and the stack still serves normal requests", async () => {
    expect(await simulatorRequests(stack.simulatorUrl)).toEqual([]);
    for (const process of Object.values(stack.processes)) {
      expect([process.name, process.child.exitCode, process.child.signalCode]).toEqual([process.name, null, null]);
    }
    const client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
    const chat = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [{ role: "user", content: "still alive?" }],
    });
    expect(chat.choices[0]!.message.content).toMatch(/\w/);
    const completion = await client.completions.create({ model: "gpt-4o-mini", prompt: "still alive?" });
    expect(completion.choices[0]!.text).toMatch(/\w/);
    const embedding = await client.embeddings.create({ model: "text-embedding-3-small", input: "still alive?" });
    expect(embedding.data[0]!.embedding).toHaveLength(1536);
  });
});
