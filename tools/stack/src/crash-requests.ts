import type { ServiceProcess } from "./service-process.js";

/**
 * Requests that once stopped a process (issue 9), with the answer each must get instead.
 * Integration tests send them through a running stack and then check that it still serves.
 */
export interface CrashRequest {
  name: string;
  status: number;
  send(baseUrl: string, keys: CrashRequestKeys): Promise<Response>;
}

export interface CrashRequestKeys {
  // A premium key with credit.
  apiKey: string;
  // A key whose account cannot pay for anything.
  brokeKey: string;
}

const boundary = "gateway-crash-boundary";

function postJson(baseUrl: string, path: string, key: string, body: unknown) {
  return fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A multipart body whose `fileField` part is cut off: no closing boundary ever comes. */
function postCutMultipart(
  baseUrl: string,
  path: string,
  key: string,
  fields: Record<string, string>,
  fileField: string,
) {
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const cutFile =
    `--${boundary}\r\nContent-Disposition: form-data; name="${fileField}"; filename="upload.bin"\r\n` +
    "Content-Type: application/octet-stream\r\n\r\nRIFF\x24\x00\x00\x00WAVEfmt ";
  return fetch(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
    body: parts.join("") + cutFile,
  });
}

const chat = (model: string, content = "hi") => ({ model, stream: true, messages: [{ role: "user", content }] });

export const crashRequests: CrashRequest[] = [
  {
    name: "a streaming chat for an unknown model",
    status: 404,
    send: (baseUrl, { apiKey }) => postJson(baseUrl, "/chat/completions", apiKey, chat("gpt-99-unknown")),
  },
  {
    name: "a streaming chat refused for quota",
    status: 429,
    send: (baseUrl, { brokeKey }) => postJson(baseUrl, "/chat/completions", brokeKey, chat("gpt-4o-mini")),
  },
  {
    name: "a streaming chat during a vendor outage",
    status: 503,
    send: (baseUrl, { apiKey }) =>
      postJson(baseUrl, "/chat/completions", apiKey, chat("deepseek-chat", "hi [sim:status=503]")),
  },
  {
    name: "a streaming legacy completion for an unknown model",
    status: 404,
    send: (baseUrl, { apiKey }) =>
      postJson(baseUrl, "/completions", apiKey, { model: "gpt-99-unknown", prompt: "hi", stream: true }),
  },
  {
    name: "a streaming Responses request for an unknown model",
    status: 404,
    send: (baseUrl, { apiKey }) =>
      postJson(baseUrl, "/responses", apiKey, { model: "gpt-99-unknown", input: "hi", stream: true }),
  },
  {
    name: "a transcription whose multipart body is cut off",
    status: 400,
    send: (baseUrl, { apiKey }) =>
      postCutMultipart(baseUrl, "/audio/transcriptions", apiKey, { model: "whisper-1" }, "file"),
  },
  {
    name: "an image edit whose multipart body is cut off",
    status: 400,
    send: (baseUrl, { apiKey }) =>
      postCutMultipart(baseUrl, "/images/edits", apiKey, { model: "gpt-image-2.6-flare", prompt: "a hat" }, "image"),
  },
];

/** A request any working stack answers with 200. */
export async function answersNormally(baseUrl: string, apiKey: string): Promise<boolean> {
  const response = await postJson(baseUrl, "/chat/completions", apiKey, {
    model: "gpt-4o-mini",
    messages: [{ role: "user", content: "hello" }],
  });
  await response.arrayBuffer();
  return response.ok;
}

/** Names the processes that have exited. */
export const exitedProcesses = (processes: Record<string, ServiceProcess>) =>
  Object.values(processes)
    .filter(({ child }) => child.exitCode !== null || child.signalCode !== null)
    .map(({ name }) => name);

/** Lines a process logged about an error nothing handled (see packages/platform/src/process-errors.ts). */
export const uncaughtErrorLines = (processes: Record<string, ServiceProcess>) =>
  Object.values(processes).flatMap(({ name, output }) =>
    output.filter((line) => /uncaught exception|unhandled rejection/i.test(line)).map((line) => `${name}: ${line}`),
  );
