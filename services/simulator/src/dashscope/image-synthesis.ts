import { createHash, randomUUID } from "node:crypto";
import { applyLeadingFaults, resolveFault } from "../faults.js";
import { type Exchange, type SimulatorState, sendJson } from "../http.js";
import { isRecord } from "../json.js";

// DashScope's asynchronous text-to-image API as Model Studio answers it for Qwen-Image and Wan
// (Alibaba's Qwen text-to-image reference; recorded exchanges in cnblogs/dashscope-sdk):
// errors are flat `{code, message, request_id}`, a task is PENDING, then RUNNING, then
// SUCCEEDED (result URLs) or FAILED (code and message), and an unknown task is UNKNOWN with a 200.

interface ModelRules {
  defaultSize: string;
  /** Whether a width*height size is one the model draws. */
  takesSize: (width: number, height: number, size: string) => boolean;
  sizesSaid: string;
  maxN: number;
}

// Qwen-Image's five sizes and one image (Alibaba's Qwen text-to-image reference); Wan 2.2 and 2.1 take any
// width and height from 512 to 1440 and 1 to 4 images (its Wan text-to-image V2 reference).
const qwenImageSizes = new Set(["1328*1328", "1664*928", "928*1664", "1472*1140", "1140*1472"]);
const qwenImage: ModelRules = {
  defaultSize: "1328*1328",
  takesSize: (_width, _height, size) => qwenImageSizes.has(size),
  sizesSaid: `the allowed size ${[...qwenImageSizes].join(", ")}`,
  maxN: 1,
};
const inWanRange = (side: number) => Number.isInteger(side) && side >= 512 && side <= 1440;
const wan: ModelRules = {
  defaultSize: "1024*1024",
  takesSize: (width, height) => inWanRange(width) && inWanRange(height),
  sizesSaid: "a width and height in [512, 1440]",
  maxN: 4,
};
const modelRules = new Map<string, ModelRules>([
  ...["qwen-image", "qwen-image-plus", "qwen-image-plus-2026-01-09"].map((id) => [id, qwenImage] as const),
  ...["wan2.2-t2i-flash", "wan2.2-t2i-plus", "wanx2.1-t2i-turbo", "wanx2.1-t2i-plus"].map((id) => [id, wan] as const),
]);
const longestPrompt = 800;
// How long a task runs unless a fault says otherwise: long enough to be seen RUNNING.
const defaultTaskMs = 300;
// How long the simulator remembers a task (Alibaba keeps them 24 hours).
const keptMs = 10 * 60_000;

interface ImageTask {
  id: string;
  model: string;
  prompt: string;
  width: number;
  height: number;
  n: number;
  submittedAt: number;
  runsMs: number;
  fails: boolean;
  // Queued until someone first asks after it, so a poll sees PENDING, then RUNNING.
  scheduled: boolean;
}

/** Every task submitted, by id; old ones are forgotten as new ones arrive. */
export class ImageTaskStore {
  private readonly tasks = new Map<string, ImageTask>();

  add(task: ImageTask): void {
    const now = Date.now();
    for (const [id, old] of this.tasks) if (now - old.submittedAt > keptMs) this.tasks.delete(id);
    this.tasks.set(task.id, task);
  }

  get(id: string): ImageTask | undefined {
    return this.tasks.get(id);
  }
}

class DashScopeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function sendDashScopeError(exchange: Exchange, status: number, code: string, message: string): void {
  sendJson(exchange, status, { code, message, request_id: randomUUID() });
}

/** DashScope's answers for the statuses the fault queue asks for. */
function sendStatusFault(exchange: Exchange, status: number): void {
  if (status === 429) {
    sendDashScopeError(exchange, 429, "Throttling.RateQuota", "Requests rate limit exceeded, please try again later.");
  } else if (status >= 500) {
    sendDashScopeError(exchange, status, "InternalError", "An internal error has occured, please try again later.");
  } else {
    sendDashScopeError(exchange, status, "InvalidParameter", "Simulated bad request.");
  }
}

function bearerKey(exchange: Exchange): string | undefined {
  const key = exchange.request.headers.authorization?.replace(/^Bearer\s+/i, "");
  if (key) return key;
  sendDashScopeError(exchange, 401, "InvalidApiKey", "No API-key provided.");
  return undefined;
}

function readTask(body: unknown): Omit<ImageTask, "id" | "submittedAt" | "runsMs" | "fails" | "scheduled"> {
  if (!isRecord(body)) throw new DashScopeError(400, "InvalidParameter", "The request body must be a JSON object.");
  const { model, input, parameters = {} } = body;
  const rules = typeof model === "string" ? modelRules.get(model) : undefined;
  if (typeof model !== "string" || !rules) throw new DashScopeError(400, "InvalidParameter", "Model not exist.");
  const prompt = isRecord(input) ? input.prompt : undefined;
  if (typeof prompt !== "string" || prompt.trim() === "") {
    throw new DashScopeError(400, "InvalidParameter", "Field required: input.prompt");
  }
  if (prompt.length > longestPrompt) {
    throw new DashScopeError(400, "InvalidParameter", `Range of input.prompt length should be [1, ${longestPrompt}]`);
  }
  if (!isRecord(parameters)) throw new DashScopeError(400, "InvalidParameter", "parameters must be an object.");
  const size = parameters.size ?? rules.defaultSize;
  const [width = 0, height = 0] = typeof size === "string" ? size.split("*").map(Number) : [];
  if (typeof size !== "string" || !/^\d+\*\d+$/.test(size) || !rules.takesSize(width, height, size)) {
    throw new DashScopeError(400, "InvalidParameter", `The size is not match ${rules.sizesSaid}`);
  }
  const n = parameters.n ?? 1;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > rules.maxN) {
    throw new DashScopeError(400, "InvalidParameter", `Range of n should be [1, ${rules.maxN}]`);
  }
  return { model, prompt, width, height, n };
}

/** POST /api/v1/services/aigc/text2image/image-synthesis: queues a task and answers its id. */
export async function submitImageSynthesis(exchange: Exchange, state: SimulatorState): Promise<void> {
  const apiKey = bearerKey(exchange);
  if (!apiKey) return;
  if (exchange.request.headers["x-dashscope-async"] !== "enable") {
    sendDashScopeError(exchange, 403, "AccessDenied", "current user api does not support synchronous calls");
    return;
  }
  let read: ReturnType<typeof readTask>;
  try {
    read = readTask(exchange.body);
  } catch (error) {
    if (!(error instanceof DashScopeError)) throw error;
    sendDashScopeError(exchange, error.status, error.code, error.message);
    return;
  }
  const fault = resolveFault(state.faults, read.model, read.prompt, apiKey);
  if (!(await applyLeadingFaults(exchange, fault, sendStatusFault))) return;
  const task: ImageTask = {
    ...read,
    id: randomUUID(),
    submittedAt: Date.now(),
    runsMs: fault.taskMs ?? defaultTaskMs,
    fails: fault.taskFail === true,
    scheduled: false,
  };
  state.imageTasks.add(task);
  sendJson(exchange, 200, { output: { task_status: "PENDING", task_id: task.id }, request_id: randomUUID() });
}

// DashScope's timestamps: "2024-03-01 17:38:24.817", Beijing time.
const dashScopeTime = (epochMs: number) =>
  new Date(epochMs + 8 * 3_600_000).toISOString().replace("T", " ").replace("Z", "");

function resultUrl(exchange: Exchange, task: ImageTask, index: number): string {
  const digest = createHash("sha256").update(`${task.prompt}\u0000${index}`).digest("hex").slice(0, 6);
  return `http://${exchange.request.headers.host ?? "127.0.0.1"}/_sim/generated/${digest}-${task.width}x${task.height}.png`;
}

// DashScope names the charset on a task's state (cnblogs/dashscope-sdk's recordings), not on a submission's answer.
const sendTask = (exchange: Exchange, body: unknown) =>
  sendJson(exchange, 200, body, { "content-type": "application/json;charset=UTF-8" });

/** GET /api/v1/tasks/{task_id}: the task's state: queued, running until its time is up, then ended. */
export function getTask(exchange: Exchange, state: SimulatorState): void {
  if (!bearerKey(exchange)) return;
  const id = decodeURIComponent(exchange.path.slice("/api/v1/tasks/".length));
  const task = state.imageTasks.get(id);
  const requestId = randomUUID();
  if (!task) {
    sendTask(exchange, { request_id: requestId, output: { task_id: id, task_status: "UNKNOWN" } });
    return;
  }
  const elapsed = Date.now() - task.submittedAt;
  const times = { submit_time: dashScopeTime(task.submittedAt), scheduled_time: dashScopeTime(task.submittedAt + 10) };
  if (elapsed < task.runsMs) {
    const status = task.scheduled ? "RUNNING" : "PENDING";
    task.scheduled = true;
    const metrics = { TOTAL: task.n, SUCCEEDED: 0, FAILED: 0 };
    sendTask(exchange, {
      request_id: requestId,
      output: { task_id: id, task_status: status, ...times, task_metrics: metrics },
    });
    return;
  }
  const ended = { ...times, end_time: dashScopeTime(task.submittedAt + task.runsMs) };
  if (task.fails) {
    sendTask(exchange, {
      request_id: requestId,
      output: {
        task_id: id,
        task_status: "FAILED",
        ...ended,
        code: "DataInspectionFailed",
        message: "Input data may contain inappropriate content.",
      },
    });
    return;
  }
  const results = Array.from({ length: task.n }, (_, index) => ({
    orig_prompt: task.prompt,
    url: resultUrl(exchange, task, index),
  }));
  sendTask(exchange, {
    request_id: requestId,
    output: {
      task_id: id,
      task_status: "SUCCEEDED",
      ...ended,
      results,
      task_metrics: { TOTAL: task.n, SUCCEEDED: task.n, FAILED: 0 },
    },
    usage: { image_count: task.n },
  });
}
