import { applyLeadingFaults, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson, writeHead } from "../http.js";
import { describeForm, parseMultipart } from "../multipart.js";
import { requireApiKey, sendOpenAIError, sendStatusFault } from "./errors.js";
import { type Transcript, toSrt, toVtt, transcribe } from "./transcript.js";

const formats = ["json", "text", "srt", "verbose_json", "vtt"];
// The gpt-4o transcribe models answer json only.
const jsonOnly = (model: string) => model.startsWith("gpt-4o");
const languages: Record<string, string> = {
  en: "english",
  zh: "chinese",
  fr: "french",
  de: "german",
  es: "spanish",
  ja: "japanese",
};

function sendText(exchange: Exchange, text: string): void {
  writeHead(exchange, 200, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text) });
  exchange.response.end(text);
}

function verbose(transcript: Transcript, language: string, granularities: string[]) {
  const withWords = granularities.includes("word");
  const withSegments = granularities.length === 0 || granularities.includes("segment");
  return {
    task: "transcribe",
    language,
    duration: transcript.duration,
    text: transcript.text,
    ...(withWords && { words: transcript.segments.flatMap((segment) => segment.words) }),
    ...(withSegments && {
      segments: transcript.segments.map((segment) => ({
        id: segment.id,
        seek: 0,
        start: segment.start,
        end: segment.end,
        text: ` ${segment.text}`,
        tokens: segment.words.map((_, index) => 50_364 + index),
        temperature: 0,
        avg_logprob: -0.25,
        compression_ratio: 1.2,
        no_speech_prob: 0.01,
      })),
    }),
    usage: { type: "duration", seconds: Math.ceil(transcript.duration) },
  };
}

/** POST /v1/audio/transcriptions (multipart), answered in each of OpenAI's formats. */
export async function audioTranscriptions(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireApiKey(exchange)) return;
  const form = parseMultipart(exchange.bodyBytes, exchange.request.headers["content-type"]);
  if (!form) return sendOpenAIError(exchange, 400, "The request body must be multipart/form-data.");
  if (exchange.record) exchange.record.body = describeForm(form);
  const field = (name: string) => form.fields.get(name)?.[0];
  const file = form.files.get("file")?.[0];
  const model = field("model");
  if (!model) return sendOpenAIError(exchange, 400, "you must provide a model parameter", { param: "model" });
  if (!file) return sendOpenAIError(exchange, 400, "Missing required parameter: 'file'.", { param: "file" });
  const format = field("response_format") ?? "json";
  if (!formats.includes(format) || (jsonOnly(model) && format !== "json")) {
    return sendOpenAIError(exchange, 400, `response_format '${format}' is not compatible with model '${model}'.`, {
      param: "response_format",
    });
  }
  const granularities = form.fields.get("timestamp_granularities[]") ?? [];
  if (granularities.length > 0 && format !== "verbose_json") {
    return sendOpenAIError(exchange, 400, "timestamp_granularities requires response_format=verbose_json.", {
      param: "timestamp_granularities",
    });
  }
  const apiKey = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  const fault = resolveFault(state.faults, model, field("prompt") ?? "", apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const transcript = transcribe(file.data);
  if (format === "text") return sendText(exchange, `${transcript.text}\n`);
  if (format === "srt") return sendText(exchange, toSrt(transcript));
  if (format === "vtt") return sendText(exchange, toVtt(transcript));
  const language = languages[field("language") ?? "en"] ?? "english";
  if (format === "verbose_json") return sendJson(exchange, 200, verbose(transcript, language, granularities));
  sendJson(exchange, 200, { text: transcript.text, usage: usageOf(model, transcript) });
}

/** whisper reports seconds; the gpt-4o transcribe models report tokens, which state no length. */
function usageOf(model: string, transcript: Transcript) {
  if (!jsonOnly(model)) return { type: "duration", seconds: Math.ceil(transcript.duration) };
  const audioTokens = Math.ceil(transcript.duration * 10);
  const outputTokens = transcript.text.split(" ").length;
  return {
    type: "tokens",
    input_tokens: audioTokens,
    input_token_details: { text_tokens: 0, audio_tokens: audioTokens },
    output_tokens: outputTokens,
    total_tokens: audioTokens + outputTokens,
  };
}
