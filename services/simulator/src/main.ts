import { watchProcessErrors } from "@gateway/platform";
import { startSimulator } from "./server.js";

function integerFromEnv(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function numberFromEnv(name: string): number | undefined {
  const raw = process.env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

function listFromEnv(name: string): string[] | undefined {
  const names = process.env[name]
    ?.split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  return names?.length ? names : undefined;
}

function log(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

// Pino's numeric levels, as every other service writes them.
const errorLine = (level: number) => (fields: Record<string, unknown>, msg: string) =>
  log({
    level,
    service: "simulator",
    msg,
    ...fields,
    err: fields.err instanceof Error ? fields.err.stack : fields.err,
  });
const processErrors = watchProcessErrors({ error: errorLine(50), fatal: errorLine(60) });

async function main(): Promise<void> {
  const simulator = await startSimulator({
    host: process.env.SIMULATOR_HOST?.trim() || "127.0.0.1",
    port: integerFromEnv("SIMULATOR_PORT", 8090),
    requestLogCapacity: integerFromEnv("SIMULATOR_REQUEST_LOG_CAPACITY", 200),
    tokenLatencyMs: integerFromEnv("SIMULATOR_TOKEN_LATENCY_MS", 0),
    firstTokenLatencyMs: integerFromEnv("SIMULATOR_FIRST_TOKEN_LATENCY_MS", 0),
    videoSecondsPerSecond: numberFromEnv("SIMULATOR_VIDEO_SECONDS_PER_SECOND"),
    s3: {
      accessKeyId: process.env.SIMULATOR_S3_ACCESS_KEY_ID?.trim() || undefined,
      secretAccessKey: process.env.SIMULATOR_S3_SECRET_ACCESS_KEY?.trim() || undefined,
      buckets: listFromEnv("SIMULATOR_S3_BUCKETS"),
      maxBytes: numberFromEnv("SIMULATOR_S3_MAX_BYTES"),
    },
  });
  log({ msg: "ready", service: "simulator", ports: { http: simulator.port } });
  processErrors.serving();
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A second signal means the caller is done waiting.
    if (stopping) process.exit(1);
    stopping = true;
    log({ msg: "stopping", service: "simulator", signal });
    void simulator.close().then(() => {
      process.exitCode = 0;
    });
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${JSON.stringify({ msg: "failed to start", service: "simulator", error: String(error) })}\n`);
  process.exit(1);
});
