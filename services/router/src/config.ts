import { fileURLToPath } from "node:url";
import { usageSpoolConfig } from "@gateway/billing";
import { byteSize, commaSeparated, commonConfig, filesConfig, loadConfig, port } from "@gateway/platform";
import { z } from "zod";

const defaultCataloguePath = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));

export const routerConfigSchema = z.object({
  ...commonConfig,
  ...filesConfig,
  // Generated images answered as url are kept this long (edge's signed URLs expire sooner), then deleted.
  GATEWAY_FILES_KEEP_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 60 * 60_000),
  // Image models billed by token (OpenAI's GPT image models) reserve this many output tokens per
  // image asked for, and as many input tokens per image an edit sends: a gateway policy, since the
  // vendor's count is known only from its answer, which the bill then follows (docs/pricing.md).
  ROUTER_IMAGE_OUTPUT_TOKENS_BOUND: z.coerce.number().int().positive().default(16_384),
  ROUTER_HOST: z.string().default("127.0.0.1"),
  ROUTER_PORT: port(50051),
  // Prometheus /metrics (and later probes) on a small HTTP server of its own; 0 picks a free port.
  ROUTER_ADMIN_PORT: port(9465),
  // Reservations of worst-case cost live in Redis; ledger loads balances there on request.
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  LEDGER_URL: z.string().default("127.0.0.1:50052"),
  // A reservation whose usage event never arrives (router died mid-request) lapses after this.
  RESERVATION_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 60_000),
  // Admission leases (packages/billing/src/admission-leases.ts): the most of an account's balance
  // (or a capped key's room) one lease holds to admit requests without a Redis call, with slices
  // of the group's limits, in micro-yuan; also each lease's share of the overdraft bound
  // (docs/operations.md). 0 (the default) reserves every request in Redis: near an empty
  // balance one router's lease can hold what is left, and another router then refuses.
  ROUTER_ADMISSION_LEASE_MAX_MICROS: z.coerce.number().int().min(0).default(0),
  // How long a lease admits requests before the router takes a fresh one (and hands an idle account's rest back).
  ROUTER_ADMISSION_LEASE_MS: z.coerce.number().int().positive().default(1_000),
  // A router that has not beaten in Redis for this long (killed) has its leases dropped by the
  // others, instead of their staying reserved until RESERVATION_TTL_MS.
  ROUTER_ADMISSION_LEASE_ORPHAN_MS: z.coerce.number().int().positive().default(15_000),
  // A concurrency slot whose request never reports its end (router died mid-request) lapses after this.
  RATE_LIMIT_LEASE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  ...usageSpoolConfig(256 * 1024 * 1024),
  CATALOGUE_PATH: z.string().default(defaultCataloguePath),
  // The catalogue store (schema `catalogue`): the file above is imported into it at start when the
  // store lacks it and whenever the file changes. Unset, the file alone is the catalogue, unchangeable at run time.
  DATABASE_URL: z.string().min(1).optional(),
  // 32 bytes (64 hex digits or base64) sealing the channel API keys the store holds (AES-256-GCM).
  CATALOGUE_ENCRYPTION_KEY: z.string().min(1).optional(),
  // How often the store's revision is checked, should a `catalogue.changed` message be missed.
  CATALOGUE_POLL_MS: z.coerce.number().int().positive().default(5_000),
  // Guards the catalogue admin API on the admin port; unset, that API is off.
  GATEWAY_ADMIN_TOKEN: z.string().min(16).optional(),
  // Where channels without a vendor key send their requests.
  SIMULATOR_URL: z.string().url().default("http://127.0.0.1:8090"),
  // Image URLs an adapter must download (Gemini takes inline data) may not point at private,
  // loopback or link-local addresses, except these host[:port] values (comma-separated).
  IMAGE_FETCH_ALLOWED_PRIVATE_HOSTS: commaSeparated(),
  IMAGE_FETCH_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  // What all the image downloads of one request may add up to.
  IMAGE_FETCH_MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  // The request body bytes router works on at once, across every edge that sends to it (edge
  // declares each call's; body-budget-interceptor.ts): about two maximal bodies within the pod's 640 MiB.
  ROUTER_BODY_BYTES_IN_FLIGHT: byteSize("48mb"),
  // Retries and failover: attempts per request, backoff, and the deadline for starting another attempt.
  ROUTER_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  ROUTER_RETRY_BASE_MS: z.coerce.number().int().min(0).default(200),
  ROUTER_RETRY_MAX_MS: z.coerce.number().int().min(0).default(5_000),
  ROUTER_RETRY_DEADLINE_MS: z.coerce.number().int().positive().default(60_000),
  // Circuit breaking: consecutive vendor failures that open a channel, and how long it rests.
  CIRCUIT_FAILURE_THRESHOLD: z.coerce.number().int().min(1).default(5),
  CIRCUIT_COOLDOWN_MS: z.coerce.number().int().min(0).default(30_000),
  // Whether a key the vendor refuses (bad key, spent balance) is taken out of service until an
  // operator enables it again; "false" answers the refusal and keeps trying the key.
  ROUTER_DISABLE_REFUSED_KEYS: z
    .enum(["true", "false"])
    .default("true")
    .transform((value) => value === "true"),
  // Per-attempt vendor timeouts for models whose catalogue entry sets none.
  VENDOR_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  VENDOR_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  VENDOR_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  IMAGE_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  // Request logs: the deployment's capture level (an account's own setting wins) and the most
  // bytes one entry keeps of its request and response bodies together (at most 512 KiB, so an
  // entry always fits in one NATS message).
  GATEWAY_REQUEST_LOG_CAPTURE: z.enum(["full", "metadata", "off"]).default("full"),
  GATEWAY_REQUEST_LOG_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(512 * 1024)
    .default(32 * 1024),
  // The spool of request log batches NATS did not take, beside the usage spool and bounded on its own.
  REQUEST_LOG_SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
});

export type RouterConfig = z.infer<typeof routerConfigSchema>;

export const loadRouterConfig = () => loadConfig(routerConfigSchema);
