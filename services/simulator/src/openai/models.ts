import { type Exchange, type SimulatorState, sendJson } from "../http.js";
import { isRecord } from "../json.js";
import { requireApiKey } from "./errors.js";

const alwaysListed = "gpt-4o-mini";
// A fixed date keeps the listing identical between runs.
const created = 1_700_000_000;

/** GET /v1/models: the models asked for recently (newest first), so any model id "exists". */
export function listModels(exchange: Exchange, state: SimulatorState): void {
  if (!requireApiKey(exchange)) return;
  const ids = new Set<string>();
  const records = state.requests.list();
  for (let index = records.length - 1; index >= 0; index--) {
    const body = records[index]!.body;
    if (isRecord(body) && typeof body.model === "string") ids.add(body.model);
  }
  ids.add(alwaysListed);
  const data = [...ids].map((id) => ({ id, object: "model", created, owned_by: "simulator" }));
  sendJson(exchange, 200, { object: "list", data });
}
