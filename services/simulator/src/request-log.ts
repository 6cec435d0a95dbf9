import type { IncomingHttpHeaders } from "node:http";
import { type Exchange, type SimulatorState, sendJson } from "./http.js";

export interface RequestRecord {
  id: string;
  at: string;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body: unknown;
  /** The body as it arrived (its first MiB), for comparing bytes rather than values. */
  bodyText: string;
  /** True when the client went away before the response completed. */
  aborted: boolean;
  /** The status sent, or null while no headers went out. */
  status: number | null;
}

// Headers that carry a vendor key in some protocol; only enough is kept to tell keys apart.
const secretHeaders = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key"]);

function redact(value: string): string {
  const space = value.indexOf(" ");
  const scheme = space > 0 ? value.slice(0, space + 1) : "";
  const secret = value.slice(scheme.length).trimStart();
  // The ends of a long key tell keys apart (the gateway's channels) without revealing one.
  const tail = secret.length > 12 ? secret.slice(-4) : "";
  return `${scheme}${secret.slice(0, 4)}...${tail}`;
}

export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const copy: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    copy[name] = secretHeaders.has(name) && typeof value === "string" ? redact(value) : value;
  }
  return copy;
}

/** The most recent requests, oldest first; tests read it to see what the gateway really sent. */
export class RequestLog {
  private readonly records: RequestRecord[] = [];

  constructor(private readonly capacity = 200) {}

  add(record: RequestRecord): void {
    this.records.push(record);
    if (this.records.length > this.capacity) this.records.shift();
  }

  list(): readonly RequestRecord[] {
    return this.records;
  }

  clear(): number {
    return this.records.splice(0).length;
  }
}

export function listRequests(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { data: state.requests.list() });
}

export function clearRequests(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { cleared: state.requests.clear() });
}
