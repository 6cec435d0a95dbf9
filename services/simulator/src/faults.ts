import type { Exchange, SimulatorState } from "./http.js";
import { sendJson, wait } from "./http.js";
import { isRecord } from "./json.js";
import { stripToolDirectives } from "./tool-directive.js";

type NumericKey =
  | "status"
  | "delayMs"
  | "cutAfter"
  | "tokenLatencyMs"
  | "tokens"
  | "videoMs"
  | "taskMs"
  | "retryAfterMs";
type FlagKey = "hang" | "noUsage" | "videoFail" | "taskFail" | "standardTier";

/** Misbehaviour asked of one request; every field is optional and absent means "behave". */
export type Fault = Partial<Record<NumericKey, number> & Record<FlagKey, boolean>>;

// The wire names, shared by the message directives and the control API.
const numericKeys = new Map<string, NumericKey>([
  ["status", "status"],
  // The wait a 429 or an overload asks for, in the vendor's own way (default a second).
  ["retry_after_ms", "retryAfterMs"],
  ["delay_ms", "delayMs"],
  ["cut_after", "cutAfter"],
  ["token_latency_ms", "tokenLatencyMs"],
  ["tokens", "tokens"],
  // Videos: how long the job takes, and a job that ends failed.
  ["video_ms", "videoMs"],
  // DashScope's asynchronous image tasks: how long one runs, and one that ends FAILED.
  ["task_ms", "taskMs"],
]);
const flagKeys = new Map<string, FlagKey>([
  ["hang", "hang"],
  ["no_usage", "noUsage"],
  ["video_fail", "videoFail"],
  ["task_fail", "taskFail"],
  // A surcharged option (OpenAI's priority tier, Claude's fast mode or US inference) served at standard.
  ["standard_tier", "standardTier"],
]);
const longestDelayMs = 2_147_483_647;
const limits: Record<NumericKey, readonly [number, number]> = {
  status: [400, 599],
  retryAfterMs: [1, 86_400_000],
  delayMs: [0, longestDelayMs],
  cutAfter: [0, 1_000_000],
  tokenLatencyMs: [0, longestDelayMs],
  tokens: [0, 100_000],
  videoMs: [0, longestDelayMs],
  taskMs: [0, longestDelayMs],
};

const directivePattern = /\[sim:([a-z_]+)(?:=(\d+))?\]/g;

function inRange(key: NumericKey, value: number): boolean {
  const [lowest, highest] = limits[key];
  return Number.isInteger(value) && value >= lowest && value <= highest;
}

/** Reads `[sim:name]` and `[sim:name=value]` directives; unknown names and out-of-range values are ignored. */
export function parseDirectives(text: string): Fault {
  const fault: Fault = {};
  if (!text.includes("[sim:")) return fault;
  for (const [, name = "", value] of text.matchAll(directivePattern)) {
    const flag = flagKeys.get(name);
    const numeric = numericKeys.get(name);
    if (flag) fault[flag] = true;
    else if (numeric && value !== undefined && inRange(numeric, Number(value))) fault[numeric] = Number(value);
  }
  return fault;
}

/** Removes directives, so they never leak into the simulated answer. */
export function stripDirectives(text: string): string {
  return text.includes("[sim:") ? stripToolDirectives(text).replace(directivePattern, " ") : text;
}

export class FaultSpecError extends Error {}

export interface FaultSpec {
  fault: Fault;
  count: number;
  model: string | undefined;
  // Lets a test fail one gateway channel (its credential) while another of the same vendor works.
  apiKey: string | undefined;
  /** The fields as they were given, to show them back. */
  given: Record<string, unknown>;
}

/** Validates a control-API body such as `{"status":503,"count":2,"model":"gpt-4o"}`. */
export function parseFaultSpec(body: unknown): FaultSpec {
  if (!isRecord(body)) throw new FaultSpecError("expected a JSON object");
  const spec: FaultSpec = { fault: {}, count: 1, model: undefined, apiKey: undefined, given: body };
  for (const [name, value] of Object.entries(body)) readField(spec, name, value);
  if (Object.keys(spec.fault).length === 0) throw new FaultSpecError("no fault given");
  return spec;
}

function readField(spec: FaultSpec, name: string, value: unknown): void {
  const flag = flagKeys.get(name);
  const numeric = numericKeys.get(name);
  if (name === "count") {
    if (!Number.isInteger(value) || (value as number) < 1) throw new FaultSpecError("count must be a positive integer");
    spec.count = value as number;
  } else if (name === "model") {
    if (typeof value !== "string" || value === "") throw new FaultSpecError("model must be a non-empty string");
    spec.model = value;
  } else if (name === "api_key") {
    if (typeof value !== "string" || value === "") throw new FaultSpecError("api_key must be a non-empty string");
    spec.apiKey = value;
  } else if (flag) {
    if (typeof value !== "boolean") throw new FaultSpecError(`${name} must be a boolean`);
    if (value) spec.fault[flag] = true;
  } else if (numeric) {
    if (typeof value !== "number" || !inRange(numeric, value)) throw new FaultSpecError(`${name} is out of range`);
    spec.fault[numeric] = value;
  } else {
    throw new FaultSpecError(`unknown field ${name}`);
  }
}

interface QueuedFault {
  id: number;
  spec: FaultSpec;
  remaining: number;
}

/** Faults waiting for the next matching requests, first queued first used. */
export class FaultQueue {
  private readonly entries: QueuedFault[] = [];
  private nextId = 1;

  add(spec: FaultSpec): QueuedFault {
    const entry = { id: this.nextId++, spec, remaining: spec.count };
    this.entries.push(entry);
    return entry;
  }

  /** Consumes one use of the first fault that matches the model (and the caller's key, when the fault names one). */
  take(model: string, apiKey?: string): Fault | undefined {
    if (this.entries.length === 0) return undefined;
    const matches = (value: string | undefined, actual: string | undefined) => value === undefined || value === actual;
    const index = this.entries.findIndex(
      (entry) => matches(entry.spec.model, model) && matches(entry.spec.apiKey, apiKey),
    );
    const entry = this.entries[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining === 0) this.entries.splice(index, 1);
    return entry.spec.fault;
  }

  clear(): number {
    return this.entries.splice(0).length;
  }

  list(): QueuedFault[] {
    return [...this.entries];
  }
}

/** Directives in the message win over a queued fault, field by field. */
export function resolveFault(faults: FaultQueue, model: string, text: string, apiKey?: string): Fault {
  const queued = faults.take(model, apiKey);
  const directives = parseDirectives(text);
  return queued ? { ...queued, ...directives } : directives;
}

const defaultRetryAfterMs = 1_000;

/**
 * Faults that act before any answer exists; false when the request ends (or idles) here.
 * `sendStatusFault` words the failure, and the wait it asks for, in the endpoint's own protocol.
 */
export async function applyLeadingFaults(
  exchange: Exchange,
  fault: Fault,
  sendStatusFault: (exchange: Exchange, status: number, retryAfterMs: number) => void,
): Promise<boolean> {
  if (fault.delayMs && !(await wait(exchange, fault.delayMs))) return false;
  // A hang leaves the request open until the client gives up or the simulator stops.
  if (fault.hang) return false;
  if (fault.status === undefined) return true;
  sendStatusFault(exchange, fault.status, fault.retryAfterMs ?? defaultRetryAfterMs);
  return false;
}

function describe(entry: QueuedFault) {
  return { id: entry.id, remaining: entry.remaining, ...entry.spec.given };
}

export function queueFault(exchange: Exchange, state: SimulatorState): void {
  try {
    const entry = state.faults.add(parseFaultSpec(exchange.body));
    sendJson(exchange, 200, describe(entry));
  } catch (error) {
    if (!(error instanceof FaultSpecError)) throw error;
    const message = exchange.body === undefined ? "body must be JSON" : error.message;
    sendJson(exchange, 400, { error: { message, type: "invalid_request_error" } });
  }
}

export function listFaults(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { data: state.faults.list().map(describe) });
}

export function clearFaults(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { cleared: state.faults.clear() });
}
