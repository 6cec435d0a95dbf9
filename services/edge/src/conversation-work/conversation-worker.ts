import { parentPort } from "node:worker_threads";
import { GatewayError } from "@gateway/platform";
import { ChatRequest } from "@gateway/proto/router/v1/chat";
import { type ConversationLimits, refuseOversizedConversation } from "../http/conversation-bounds.js";
import { parseJsonBytes } from "../http/json-text.js";
import { type ConversationTask, prepareConversation } from "./prepare-conversation.js";

/** One large body's job: its bytes as they arrived, parsed, bounded, validated, translated and encoded here. */
export interface ConversationJob {
  id: number;
  task: ConversationTask;
  bytes: Uint8Array;
  limits: ConversationLimits;
}

/** What the route needs back: the encoded canonical request, and what it renders the answer with. */
export interface PreparedBytes {
  encoded: Uint8Array;
  stream: boolean;
  includeUsage: boolean;
  legacyFunctions: boolean;
  includeThoughts: boolean;
}

export type JobResult =
  | { id: number; prepared: PreparedBytes }
  | {
      id: number;
      refused: { httpStatus: number; type: string; code: string | null; message: string; param: string | null };
    }
  | { id: number; failed: string };

function run({ id, task, bytes, limits }: ConversationJob): { result: JobResult; transfer: ArrayBuffer[] } {
  try {
    const body = parseJsonBytes(bytes);
    refuseOversizedConversation(task.wire, body, limits);
    const { canonical, legacyFunctions, includeThoughts } = prepareConversation(task, body);
    // The writer's own buffer, handed over rather than copied.
    const encoded = ChatRequest.encode(canonical).finish();
    const { stream, includeUsage } = canonical;
    const prepared = { encoded, stream, includeUsage, legacyFunctions, includeThoughts };
    const whole = encoded.byteOffset === 0 && encoded.byteLength === encoded.buffer.byteLength;
    return { result: { id, prepared }, transfer: whole ? [encoded.buffer as ArrayBuffer] : [] };
  } catch (error) {
    if (error instanceof GatewayError) {
      const { httpStatus, type, code, message, param } = error;
      return { result: { id, refused: { httpStatus, type, code, message, param } }, transfer: [] };
    }
    return { result: { id, failed: error instanceof Error ? error.message : String(error) }, transfer: [] };
  }
}

parentPort?.on("message", (job: ConversationJob) => {
  const { result, transfer } = run(job);
  parentPort!.postMessage(result, transfer);
});
