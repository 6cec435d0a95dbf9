import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { repoRoot } from "@gateway/stack";
import { parse as parseYaml, type ScalarTag } from "yaml";

// The corpus of recorded vendor answers (tools/replay/recordings, format in its README): the
// manifest's entries with each one's response taken out of the file it names.

export const recordingsDirectory = join(repoRoot, "tools/replay/recordings");

export type Family = "openai" | "anthropic" | "gemini" | "xai" | "deepseek" | "qwen" | "kimi";
export type Protocol =
  | "openai-chat"
  | "anthropic-messages"
  | "gemini-generate"
  | "openai-responses"
  | "openai-embeddings"
  | "gemini-embed"
  | "openai-images"
  | "openai-transcriptions"
  | "dashscope-image-synthesis";
export type FileFormat = "json" | "sse-chunks" | "sse-raw" | "vcr-yaml" | "vcr-json";

export interface ManifestEntry {
  id: string;
  file: string;
  family: Family;
  protocol: Protocol;
  format: FileFormat;
  interaction?: number;
  stream: boolean;
  status: number;
  headers?: Record<string, string>;
  /** The model the vendor answered as; null when the recording names none. */
  model: string | null;
  features: string[];
  source: { repo: string; path: string; commit: string };
  /** The recorded request, where the source keeps it: its head (request line and headers) and JSON body. */
  request?: { headers: string; body?: string };
  note?: string;
}

/**
 * What the vendor answered: a whole body, or (for stream payloads a fixture kept without their
 * framing) the payloads the replay server frames in the vendor's own SSE.
 */
export type RecordedBody = { kind: "bytes"; bytes: Buffer } | { kind: "events"; payloads: string[] };

export interface Recording extends ManifestEntry {
  headers: Record<string, string>;
  body: RecordedBody;
}

/** Every recording of the manifest in `directory`, its response read. */
export function loadRecordings(directory = recordingsDirectory): Recording[] {
  const manifest = JSON.parse(readFileSync(join(directory, "manifest.json"), "utf8")) as ManifestEntry[];
  return manifest.map((entry) => readRecording(directory, entry));
}

export function readRecording(directory: string, entry: ManifestEntry): Recording {
  const file = readFileSync(join(directory, entry.file));
  const headers = lowerCaseKeys(entry.headers ?? {});
  switch (entry.format) {
    case "json":
    case "sse-raw":
      return { ...entry, headers, body: { kind: "bytes", bytes: file } };
    case "sse-chunks":
      return { ...entry, headers, body: { kind: "events", payloads: chunkLines(file.toString("utf8")) } };
    case "vcr-yaml":
    case "vcr-json": {
      const cassette =
        entry.format === "vcr-yaml"
          ? parseYaml(file.toString("utf8"), { customTags: ["binary", rubyBinary] })
          : JSON.parse(String(file));
      const response = cassetteResponse(cassette, entry.interaction ?? 0, entry.id);
      return { ...entry, headers: { ...response.headers, ...headers }, body: { kind: "bytes", bytes: response.body } };
    }
  }
}

/** The AI SDK's *.chunks.txt: one JSON payload per non-empty line. */
const chunkLines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

const lowerCaseKeys = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

/** Ruby's VCR writes bodies that are not UTF-8 text (gzip) as `!binary` base64 scalars. */
const rubyBinary: ScalarTag = {
  tag: "!binary",
  resolve: (text: string) => Buffer.from(text.replaceAll(/\s/g, ""), "base64"),
};

interface CassetteResponse {
  headers: Record<string, string>;
  body: Buffer;
}

type Loose = Record<string, unknown>;

/**
 * One exchange of a VCR cassette (vcrpy's YAML, pydantic-ai's variant with `parsed_body`, or the
 * same as JSON): its headers (the ones that matter to a client) and its body, base64 and gzip
 * undone.
 */
function cassetteResponse(cassette: unknown, interaction: number, id: string): CassetteResponse {
  // vcrpy and pydantic-ai name the list `interactions`, Ruby's VCR `http_interactions`.
  const { interactions, http_interactions } = cassette as Record<string, Loose[] | undefined>;
  const exchanges = interactions ?? http_interactions;
  const response = exchanges?.[interaction]?.response as Loose | undefined;
  if (!response) throw new Error(`recording ${id}: the cassette has no interaction ${interaction}`);
  // The manifest names the headers that matter; of the cassette's, only the body's type is kept.
  const recorded = Object.entries((response.headers as Loose | undefined) ?? {});
  const contentType = recorded.find(([name]) => name.toLowerCase() === "content-type")?.[1];
  let body = cassetteBody(response);
  if (body[0] === 0x1f && body[1] === 0x8b) body = gunzipSync(body);
  const headers: Record<string, string> = contentType
    ? { "content-type": String(Array.isArray(contentType) ? contentType[0] : contentType) }
    : {};
  return { headers, body };
}

function cassetteBody(response: Loose): Buffer {
  if ("parsed_body" in response) return Buffer.from(JSON.stringify(response.parsed_body));
  const body = response.body as Loose | string | undefined;
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body);
  if (typeof body.base64_string === "string") return Buffer.from(body.base64_string, "base64");
  const text = body.string;
  if (text instanceof Uint8Array) return Buffer.from(text);
  if (typeof text === "string") return Buffer.from(text, "utf8");
  if (text && typeof text === "object") return Buffer.from(JSON.stringify(text));
  return Buffer.alloc(0);
}

/** The recording's response body as text; stream payloads joined one per line. */
export function bodyText(recording: Recording): string {
  return recording.body.kind === "bytes" ? recording.body.bytes.toString("utf8") : recording.body.payloads.join("\n");
}
