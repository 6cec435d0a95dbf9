import { byteSize, commonConfig, filesConfig, loadConfig, port, trustedProxiesSetting } from "@gateway/platform";
import { z } from "zod";

export const edgeConfigSchema = z.object({
  ...commonConfig,
  EDGE_HOST: z.string().default("127.0.0.1"),
  GATEWAY_PORT: port(8080),
  // Prometheus /metrics on a port of its own, so the public port never exposes it; 0 picks a free port.
  EDGE_ADMIN_PORT: port(9464),
  ROUTER_URL: z.string().default("127.0.0.1:50051"),
  LEDGER_URL: z.string().default("127.0.0.1:50052"),
  VIDEO_URL: z.string().default("127.0.0.1:50053"),
  // The largest conversation (earlier turns plus the new input, as stored) a stored response
  // may carry: an input over it is refused with 400 unless `store` is false.
  RESPONSES_MAX_STORED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
  // What one chat, Messages, Responses or Gemini request may carry (http/conversation-bounds.ts):
  // messages or input items and their content parts, and tool calls (tool results likewise).
  // Far above what coding agents send, and enough to refuse before the linear work of one
  // request holds the event loop every tenant shares.
  REQUEST_MAX_PARTS: z.coerce.number().int().positive().default(20_000),
  REQUEST_MAX_TOOL_CALLS: z.coerce.number().int().positive().default(10_000),
  // Resolved keys are kept this long in process; revocations evict them sooner.
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  // The largest chat, Responses or completions body: large enough for a few base64 images.
  BODY_LIMIT: byteSize("20mb"),
  // The JSON body bytes edge works on at once (http/body-budget.ts): each byte costs several in
  // memory, so the default lets about two maximal bodies through at once within the pod's 512 MiB.
  BODY_BYTES_IN_FLIGHT: byteSize("48mb"),
  ...filesConfig,
  // Signs generated images' URLs; set the same value on every edge, or each signs with its own random key.
  FILE_URL_SIGNING_KEY: z.string().min(32).optional(),
  FILE_URL_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  // The address clients reach edge at, for absolute links; absent, a trusted proxy's
  // X-Forwarded-Host, else edge's own listen address (never a request's Host header).
  PUBLIC_BASE_URL: z.string().url().optional(),
  GATEWAY_TRUSTED_PROXIES: trustedProxiesSetting,
});

export const loadEdgeConfig = () => loadConfig(edgeConfigSchema);
