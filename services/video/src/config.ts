import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { usageSpoolConfig } from "@gateway/billing";
import { commaSeparated, commonConfig, loadConfig, port } from "@gateway/platform";
import { z } from "zod";

const defaultCataloguePath = fileURLToPath(new URL("../../../infra/catalogue/models.yaml", import.meta.url));
const databaseUrlHint = "set it to the Postgres URL, e.g. postgresql://postgres@127.0.0.1:5432/gateway";
const secretHint = "set it to a secret of at least 16 characters";
const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);
const flag = (fallback: boolean) =>
  z
    .enum(["0", "1", "true", "false"])
    .default(fallback ? "1" : "0")
    .transform((value) => value === "1" || value === "true");
const hostList = commaSeparated();

const required = (hint: string) => z.string({ error: hint }).min(1, hint);

// Where finished videos are copied (see storage/video-storage.ts): a directory, or an S3-compatible bucket.
const storageSchema = z.discriminatedUnion("VIDEO_STORAGE", [
  z.object({
    VIDEO_STORAGE: z.literal("filesystem").default("filesystem"),
    VIDEO_STORAGE_DIR: z.string().default(".gateway/videos"),
  }),
  z.object({
    VIDEO_STORAGE: z.literal("s3"),
    // Unset for AWS itself; the URL of any other S3-compatible store (MinIO, R2, Ceph...).
    VIDEO_S3_ENDPOINT: z.string().url().optional(),
    VIDEO_S3_REGION: z.string().min(1).default("us-east-1"),
    VIDEO_S3_BUCKET: required("set it to the bucket videos are stored in (VIDEO_STORAGE=s3)"),
    VIDEO_S3_ACCESS_KEY_ID: required("set it to the access key for the bucket (VIDEO_STORAGE=s3)"),
    VIDEO_S3_SECRET_ACCESS_KEY: required("set it to the secret of VIDEO_S3_ACCESS_KEY_ID (VIDEO_STORAGE=s3)"),
    // Bucket in the path (/bucket/key) instead of the host name; unset means "when an endpoint is set".
    VIDEO_S3_FORCE_PATH_STYLE: z
      .enum(["0", "1", "true", "false"])
      .optional()
      .transform((value) => (value === undefined ? undefined : value === "1" || value === "true")),
    // Prepended to every object key, e.g. "videos/", to share a bucket.
    VIDEO_S3_PREFIX: z.string().default(""),
  }),
]);

const serviceSchema = z.object({
  ...commonConfig,
  DATABASE_URL: z.string({ error: databaseUrlHint }).min(1, databaseUrlHint),
  // Opens the vendor keys the catalogue store holds (router's CATALOGUE_ENCRYPTION_KEY, the same Secret).
  CATALOGUE_ENCRYPTION_KEY: z.string().min(1).optional(),
  VIDEO_HOST: z.string().default("127.0.0.1"),
  // 0 asks the system for any free port; the real one is printed in the "ready" line.
  VIDEO_GRPC_PORT: port(50053),
  // Prometheus /metrics (and later probes) on a small HTTP server of its own; 0 picks a free port.
  VIDEO_ADMIN_PORT: port(9466),
  CATALOGUE_PATH: z.string().default(defaultCataloguePath),
  // A submit reserves the task's cost in Redis (as router does); ledger loads balances there on request.
  REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
  LEDGER_URL: z.string().default("127.0.0.1:50052"),
  // Where channels without a vendor key send their requests.
  SIMULATOR_URL: z.string().url().default("http://127.0.0.1:8090"),
  // Signs video_url links; never shared with clients.
  VIDEO_URL_SIGNING_KEY: z.string({ error: secretHint }).min(16, secretHint),
  VIDEO_URL_TTL_SECONDS: z.coerce.number().int().positive().default(3_600),
  // Signs callback POSTs (X-Gateway-Signature); receivers verify with it.
  VIDEO_CALLBACK_SIGNING_KEY: z.string({ error: secretHint }).min(16, secretHint),
  // Callback URLs may not point at private or loopback addresses, except these host[:port] values.
  VIDEO_CALLBACK_ALLOWED_PRIVATE_HOSTS: hostList,
  VIDEO_CALLBACK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  VIDEO_CALLBACK_BASE_DELAY_MS: milliseconds(2_000),
  // An unfinished task is failed (and its vendor job cancelled) this long after submission.
  VIDEO_TASK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 60_000),
  // Whether this process runs workers; a replica may serve the API only.
  VIDEO_WORKERS: flag(true),
  VIDEO_WORKER_ID: z.string().min(1).default(`${hostname()}-${process.pid}`),
  VIDEO_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(8),
  // How often an idle worker looks for work, timed-out tasks, callbacks and expired tasks.
  VIDEO_WORKER_TICK_MS: z.coerce.number().int().positive().default(500),
  // A claimed task belongs to its worker this long, renewed while it works on it.
  VIDEO_LEASE_MS: z.coerce.number().int().min(100).default(30_000),
  // Vendor job polling backoff.
  VIDEO_POLL_INITIAL_MS: z.coerce.number().int().positive().default(1_000),
  VIDEO_POLL_MAX_MS: z.coerce.number().int().positive().default(10_000),
  VIDEO_VENDOR_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  ...usageSpoolConfig(64 * 1024 * 1024),
  // The controllable clock: a fixed offset, and (test mode only) a gRPC call that moves it.
  VIDEO_CLOCK_OFFSET_MS: z.coerce.number().int().default(0),
  VIDEO_TEST_MODE: flag(false),
});

const configSchema = serviceSchema.and(storageSchema);

export type VideoStorageConfig = z.infer<typeof storageSchema>;
export type VideoConfig = z.infer<typeof configSchema>;

export const loadVideoConfig = (env: NodeJS.ProcessEnv = process.env): VideoConfig => loadConfig(configSchema, env);
