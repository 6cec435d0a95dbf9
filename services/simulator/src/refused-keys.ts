import { googleRpcStatus } from "@gateway/platform";
import { anthropicErrorBody } from "./anthropic/errors.js";
import { type Exchange, type SimulatorState, sendJson } from "./http.js";
import { isRecord } from "./json.js";

/** How a vendor refuses a key: the key is not (or no longer) valid, or its account's balance is spent. */
export type Refusal = "invalid" | "quota";
const refusals = new Set<string>(["invalid", "quota"]);

/** Keys the simulated vendors refuse, until the control API clears them: a key stays refused as a real one does. */
export class RefusedKeys {
  private readonly keys = new Map<string, Refusal>();

  refuse(apiKey: string, refusal: Refusal): void {
    this.keys.set(apiKey, refusal);
  }

  refusalOf(apiKey: string | undefined): Refusal | undefined {
    return apiKey === undefined ? undefined : this.keys.get(apiKey);
  }

  list(): { api_key: string; refusal: Refusal }[] {
    return [...this.keys].map(([apiKey, refusal]) => ({ api_key: apiKey, refusal }));
  }

  clear(): number {
    const count = this.keys.size;
    this.keys.clear();
    return count;
  }
}

/** The key a vendor request presents, in whichever header its protocol uses. */
function presentedKey(exchange: Exchange): string | undefined {
  const headers = exchange.request.headers;
  const bearer = headers.authorization?.replace(/^Bearer\s+/i, "");
  const header = bearer ?? headers["x-api-key"] ?? headers["x-goog-api-key"];
  if (typeof header === "string" && header !== "") return header;
  return new URL(exchange.request.url ?? "/", "http://simulator").searchParams.get("key") ?? undefined;
}

const ends = (key: string) => `${key.slice(0, 3)}***${key.slice(-2)}`;
const openAIError = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});

// Each vendor's own answer to a refused key and to a spent balance (PROTOCOLS.md; the vendors'
// errors as their users report them). The OpenAI-compatible vendors are told apart by model, as
// vendor-quirks.ts does.
type Answer = [status: number, body: unknown];
const answers: Record<string, (refusal: Refusal, key: string) => Answer> = {
  openai: (refusal, key) =>
    refusal === "invalid"
      ? [401, openAIError(`Incorrect API key provided: ${ends(key)}.`, "invalid_request_error", "invalid_api_key")]
      : [
          429,
          openAIError(
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota",
            "insufficient_quota",
          ),
        ],
  deepseek: (refusal, key) =>
    refusal === "invalid"
      ? [
          401,
          openAIError(
            `Authentication Fails, Your api key: ****${key.slice(-4)} is invalid`,
            "authentication_error",
            "invalid_request_error",
          ),
        ]
      : [402, openAIError("Insufficient Balance", "unknown_error", "invalid_request_error")],
  qwen: (refusal) =>
    refusal === "invalid"
      ? [401, openAIError("Incorrect API key provided. ", "invalid_request_error", "invalid_api_key")]
      : [
          400,
          {
            error: {
              code: "Arrearage",
              param: null,
              message: "Access denied, please make sure your account is in good standing.",
              type: "Arrearage",
            },
          },
        ],
  moonshot: (refusal) =>
    refusal === "invalid"
      ? [401, { error: { message: "Invalid Authentication", type: "invalid_authentication_error" } }]
      : [
          429,
          {
            error: {
              message:
                "Your account org-sim <ak-sim> is suspended due to insufficient balance, please recharge your account or check your plan and billing details",
              type: "exceeded_current_quota_error",
            },
          },
        ],
  // xAI's errors are flat: a code sentence and the message as `error`.
  xai: (refusal, key) =>
    refusal === "invalid"
      ? [
          400,
          {
            code: "Client specified an invalid argument",
            error: `Incorrect API key provided: ${ends(key)}. You can obtain an API key from https://console.x.ai.`,
          },
        ]
      : [
          403,
          {
            code: "The caller does not have permission to execute the specified operation",
            error:
              "Your team sim-team has either used all available credits or reached its monthly spending limit. To continue making API requests, please purchase more credits or raise your spending limit.",
          },
        ],
};

function openAICompatibleVendor(model: unknown): string {
  const id = typeof model === "string" ? model : "";
  if (id.startsWith("deepseek")) return "deepseek";
  if (id.startsWith("qwen")) return "qwen";
  if (id.startsWith("kimi") || id.startsWith("moonshot")) return "moonshot";
  if (id.startsWith("grok")) return "xai";
  return "openai";
}

function answerFor(exchange: Exchange, refusal: Refusal, key: string): Answer {
  if (exchange.path.startsWith("/v1/messages")) {
    return refusal === "invalid"
      ? [401, anthropicErrorBody(exchange, "authentication_error", "invalid x-api-key")]
      : [
          400,
          anthropicErrorBody(
            exchange,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
          ),
        ];
  }
  if (exchange.path.startsWith("/v1beta/")) {
    // Gemini has no prepaid balance to spend: a key past its quota gets RESOURCE_EXHAUSTED, as for a rate limit.
    const [code, message, reason] =
      refusal === "invalid"
        ? [400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID"]
        : [429, "You exceeded your current quota, please check your plan and billing details.", "RATE_LIMIT_EXCEEDED"];
    const details = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com" }];
    return [code, { error: { code, message, status: googleRpcStatus(code), details } }];
  }
  const body = isRecord(exchange.body) ? exchange.body : {};
  return answers[openAICompatibleVendor(body.model)]!(refusal, key);
}

/** Answers a vendor request whose key is refused, in its vendor's way; false when the key may pass. */
export function refuseKey(exchange: Exchange, state: SimulatorState): boolean {
  const key = presentedKey(exchange);
  const refusal = state.refusedKeys.refusalOf(key);
  if (!refusal || key === undefined) return false;
  const [status, body] = answerFor(exchange, refusal, key);
  sendJson(exchange, status, body);
  return true;
}

/** `POST /_sim/keys/refused {"api_key": "...", "refusal": "invalid" | "quota"}`. */
export function queueRefusedKey(exchange: Exchange, state: SimulatorState): void {
  const body = exchange.body;
  if (
    !isRecord(body) ||
    typeof body.api_key !== "string" ||
    body.api_key === "" ||
    !refusals.has(String(body.refusal))
  ) {
    const message = 'expected {"api_key": non-empty string, "refusal": "invalid" or "quota"}';
    sendJson(exchange, 400, { error: { message, type: "invalid_request_error" } });
    return;
  }
  state.refusedKeys.refuse(body.api_key, body.refusal as Refusal);
  sendJson(exchange, 200, { api_key: body.api_key, refusal: body.refusal });
}

export function listRefusedKeys(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { data: state.refusedKeys.list() });
}

export function clearRefusedKeys(exchange: Exchange, state: SimulatorState): void {
  sendJson(exchange, 200, { cleared: state.refusedKeys.clear() });
}
