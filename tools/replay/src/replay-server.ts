import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Family, Protocol, Recording } from "./recordings.js";

// The recorded vendors: one HTTP server that answers as every vendor family, each under its own
// path prefix, with the recordings a test assigned to the requests carrying its marker. It keeps
// every request it received, so a test can check what the gateway sent.

/** The catalogue's key and base-URL variables of each family (infra/catalogue/models.yaml). */
const familyEnv: Record<Family, { key: string; baseUrl: string; path: string }> = {
  openai: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL", path: "/openai/v1" },
  xai: { key: "XAI_API_KEY", baseUrl: "XAI_BASE_URL", path: "/xai/v1" },
  deepseek: { key: "DEEPSEEK_API_KEY", baseUrl: "DEEPSEEK_BASE_URL", path: "/deepseek/v1" },
  qwen: { key: "DASHSCOPE_API_KEY", baseUrl: "DASHSCOPE_BASE_URL", path: "/qwen/compatible-mode/v1" },
  kimi: { key: "MOONSHOT_API_KEY", baseUrl: "MOONSHOT_BASE_URL", path: "/kimi/v1" },
  anthropic: { key: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL", path: "/anthropic" },
  gemini: { key: "GEMINI_API_KEY", baseUrl: "GEMINI_BASE_URL", path: "/gemini" },
};

/** The vendor path (after the family's base URL) each protocol's answer is served on. */
const protocolPath: Record<Protocol, RegExp> = {
  "openai-chat": /^\/chat\/completions$/,
  "openai-responses": /^\/responses$/,
  "openai-embeddings": /^\/embeddings$/,
  "openai-images": /^\/images\/generations$/,
  "openai-transcriptions": /^\/audio\/transcriptions$/,
  "anthropic-messages": /^\/v1\/messages$/,
  "gemini-generate": /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)$/,
  "gemini-embed": /^\/v1beta\/models\/[^/:]+:(embedContent|batchEmbedContents)$/,
  "dashscope-image-synthesis": /^\/api\/v1\/(services\/aigc\/text2image\/image-synthesis|tasks\/[^/]+)$/,
};

export interface ReceivedRequest {
  family: Family;
  method: string;
  /** The path under the family's base URL, query removed. */
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or undefined for other bodies (multipart). */
  json?: Record<string, unknown>;
  raw: string;
  /** The recording answered, or why none could be. */
  answeredWith?: string;
  refused?: string;
}

interface Assignment {
  marker: string;
  answers: Recording[];
  received: ReceivedRequest[];
}

export class ReplayVendor {
  private readonly assignments: Assignment[] = [];
  readonly unmatched: ReceivedRequest[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ReplayVendor> {
    let vendor: ReplayVendor | undefined;
    const server = createServer((request, response) => {
      vendor!.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" });
        response.end(`replay: ${String(error)}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    vendor = new ReplayVendor(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return vendor;
  }

  /** Every family's key and base URL, pointing the stack's channels here instead of the simulator. */
  env(): Record<string, string> {
    return Object.fromEntries(
      Object.values(familyEnv).flatMap(({ key, baseUrl, path }) => [
        [key, "replay-key"],
        [baseUrl, `${this.url}${path}`],
      ]),
    );
  }

  /**
   * Requests whose body contains `marker` are answered with `answers` in turn, the last one
   * again for any further request (a retry); returns the requests received so far, live.
   */
  serve(marker: string, ...answers: Recording[]): ReceivedRequest[] {
    const assignment = { marker, answers, received: [] };
    this.assignments.push(assignment);
    return assignment.received;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", this.url);
    const [family, path] = splitFamily(url.pathname);
    const received: ReceivedRequest = {
      family: family ?? ("openai" as Family),
      method: request.method ?? "GET",
      path,
      query: url.search,
      headers: request.headers,
      json: parseJson(raw),
      raw,
    };
    const assignment = this.assignments.findLast((candidate) => raw.includes(candidate.marker));
    if (!family || !assignment) {
      this.unmatched.push(received);
      return refuse(response, received, 404, "no recording is assigned to this request");
    }
    assignment.received.push(received);
    const recording = assignment.answers[Math.min(assignment.received.length, assignment.answers.length) - 1]!;
    if (recording.family !== family) {
      return refuse(response, received, 404, `recording ${recording.id} is ${recording.family}'s, asked as ${family}`);
    }
    if (!protocolPath[recording.protocol].test(path)) {
      return refuse(
        response,
        received,
        404,
        `recording ${recording.id} (${recording.protocol}) is not served on ${path}`,
      );
    }
    received.answeredWith = recording.id;
    await writeRecording(response, recording);
  }
}

function splitFamily(pathname: string): [Family | undefined, string] {
  for (const [family, { path }] of Object.entries(familyEnv) as [Family, { path: string }][]) {
    if (pathname.startsWith(`${path}/`)) return [family, pathname.slice(path.length)];
  }
  return [undefined, pathname];
}

function parseJson(raw: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(raw) as unknown;
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function refuse(response: ServerResponse, received: ReceivedRequest, status: number, why: string): void {
  received.refused = why;
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify({ error: { message: `replay: ${why}`, type: "replay_error" } }));
}

/** Writes the recorded answer: its status, the headers that matter, and its body or framed events. */
async function writeRecording(response: ServerResponse, recording: Recording): Promise<void> {
  const streamed = recording.body.kind === "events" || recording.stream;
  const headers = {
    "content-type": streamed && recording.status < 400 ? "text/event-stream" : "application/json",
    ...recording.headers,
  };
  response.writeHead(recording.status, headers);
  if (recording.body.kind === "bytes") {
    response.end(recording.body.bytes);
    return;
  }
  for (const payload of recording.body.payloads) {
    response.write(frameEvent(recording.protocol, payload));
    // Each event in its own TCP write, as a vendor's stream arrives.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (recording.protocol.startsWith("openai") && recording.protocol !== "openai-responses") {
    response.write("data: [DONE]\n\n");
  }
  response.end();
}

/** One stream payload in its vendor's SSE framing. */
export function frameEvent(protocol: Protocol, payload: string): string {
  switch (protocol) {
    case "anthropic-messages":
    case "openai-responses":
      return `event: ${(JSON.parse(payload) as { type: string }).type}\ndata: ${payload}\n\n`;
    case "gemini-generate":
      return `data: ${payload}\r\n\r\n`;
    default:
      return `data: ${payload}\n\n`;
  }
}
