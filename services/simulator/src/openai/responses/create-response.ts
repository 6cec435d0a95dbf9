import { answer, countPromptTokens, lastUserText } from "../../answer.js";
import { automaticPrefixes } from "../../automatic-prefixes.js";
import { applyLeadingFaults, type Fault, resolveFault } from "../../faults.js";
import { type Exchange, type SimulatorState, sendJson, wait, writeHead, writeThenSever } from "../../http.js";
import { parsedOrRefused, requireApiKey, sendStatusFault } from "../errors.js";
import { outputEvents } from "./response-events.js";
import { finished, inProgress, outputItemsOf, responseShell } from "./response-output.js";
import { parseResponsesRequest } from "./responses-request.js";

interface Pacing {
  firstTokenMs: number;
  tokenMs: number;
}

const frame = (event: Record<string, unknown> & { type: string }) =>
  `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;

/**
 * Writes the events one by one, a token's time apart for each delta; false when the stream ended
 * early: the client left, or cut_after severed it after that many deltas.
 */
async function writeEvents(
  exchange: Exchange,
  events: (Record<string, unknown> & { type: string })[],
  deltas: boolean[],
  fault: Fault,
  tokenMs: number,
): Promise<boolean> {
  let sent = 0;
  for (const [index, event] of events.entries()) {
    if (deltas[index]) {
      if (sent > 0 && tokenMs > 0 && !(await wait(exchange, tokenMs))) return false;
      sent += 1;
    }
    if (exchange.closed) return false;
    const data = frame({ ...event, sequence_number: index });
    if (fault.cutAfter !== undefined && sent >= fault.cutAfter && deltas[index]) {
      writeThenSever(exchange, data);
      return false;
    }
    exchange.response.write(data);
  }
  return true;
}

/** POST /v1/responses, answered as OpenAI's Responses API would, JSON or SSE. */
export async function createResponse(exchange: Exchange, state: SimulatorState): Promise<void> {
  if (!requireApiKey(exchange)) return;
  const request = parsedOrRefused(exchange, parseResponsesRequest);
  if (!request) return;
  const { model, messages } = request.answer;
  const apiKey = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  const fault = resolveFault(state.faults, model, lastUserText(messages), apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const inputTokens = countPromptTokens(messages);
  const cached = state.promptCache.use(`openai-responses\n${apiKey}\n${model}`, automaticPrefixes(messages)).read;
  const result = answer({ ...request.answer, length: fault.tokens });
  const shell = responseShell(request);
  const output = outputItemsOf(result, request);
  const counts = { inputTokens, cachedTokens: Math.min(cached, inputTokens) };
  const response = finished(shell, result, output, counts);
  const pacing: Pacing = {
    firstTokenMs: state.config.firstTokenLatencyMs,
    tokenMs: fault.tokenLatencyMs ?? state.config.tokenLatencyMs,
  };
  if (!request.stream) {
    const generationMs = pacing.firstTokenMs + pacing.tokenMs * Math.max(0, result.completionTokens - 1);
    if (generationMs > 0 && !(await wait(exchange, generationMs))) return;
    sendJson(exchange, 200, response);
    return;
  }
  writeHead(exchange, 200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  exchange.response.flushHeaders();
  const started = inProgress(shell);
  const planned = outputEvents(output, { reasoning: result.reasoning, text: result.tokens });
  const terminal = response.status === "completed" ? "response.completed" : "response.incomplete";
  const events = [
    { type: "response.created", response: started },
    { type: "response.in_progress", response: started },
    ...planned.map((step) => step.event),
    { type: terminal, response },
  ];
  const deltas = [false, false, ...planned.map((step) => step.delta), false];
  if (pacing.firstTokenMs > 0 && !(await wait(exchange, pacing.firstTokenMs))) return;
  if (await writeEvents(exchange, events, deltas, fault, pacing.tokenMs)) exchange.response.end();
}
