import { isRecord } from "../json.js";
import { RequestError } from "./chat-request.js";

// What Kimi's newer models refuse, as Moonshot's parameter reference states (quoted by integrators):
// K3 and K3.1 take temperature 1 only, and K3, K3.1 and K2.7 Code cannot stop thinking.

const onlyTemperatureOne = /^kimi-k3/;
const alwaysThinks = /^kimi-(k3|k2\.7)/;

export function checkMoonshotRules(model: string, body: Record<string, unknown>): void {
  if (onlyTemperatureOne.test(model) && body.temperature != null && body.temperature !== 1) {
    throw new RequestError(
      "invalid temperature: only 1 is allowed for this model",
      "temperature",
      "invalid_request_error",
    );
  }
  if (alwaysThinks.test(model) && isRecord(body.thinking) && body.thinking.type === "disabled") {
    throw new RequestError("thinking cannot be disabled for this model", "thinking", "invalid_request_error");
  }
}
