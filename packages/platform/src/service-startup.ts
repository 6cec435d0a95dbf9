import { createLogger, type Logger } from "./logger.js";
import { watchProcessErrors } from "./process-errors.js";
import { startTelemetry, stopTelemetry, type TelemetrySettings } from "./telemetry.js";

export interface ServiceStart<Config> {
  config: Config;
  logger: Logger;
  /** Ends start-up with one clear log line (an unmigrated database, NATS down, a port in use). */
  fail(message: string, error?: unknown): never;
  /**
   * Start-up is over: logs "ready" with the ports bound (what tools/stack waits for), and from now
   * on an unhandled error is logged and only fatal ones stop the process.
   */
  ready(fields: { ports: Record<string, number> } & Record<string, unknown>): void;
  /**
   * On SIGTERM or SIGINT, runs `stop` once (each service drains and closes its parts in its own
   * order), flushes telemetry and exits 0; a failure while stopping is logged and exits 1.
   */
  stopOnSignal(stop: () => Promise<void>): void;
}

/**
 * Every service's lifecycle: `beginService` reads the configuration (a bad value exits 2 with the
 * reasons) and starts telemetry before anything else; the service then opens its connections and
 * servers (`fail` on any that cannot start), announces `ready`, and drains and closes them in
 * `stopOnSignal` (graceful-shutdown.ts and http-drain.ts hold the drains).
 */
export function beginService<Config extends TelemetrySettings>(
  name: string,
  loadConfig: () => Config,
): ServiceStart<Config> {
  const logger = createLogger(name);
  const processErrors = watchProcessErrors(logger);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    logger.fatal(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  startTelemetry(name, config);
  const fail = (message: string, error?: unknown): never => {
    logger.fatal(error === undefined ? {} : { err: error }, message);
    process.exit(1);
  };
  const ready = (fields: Record<string, unknown>) => {
    logger.info(fields, "ready");
    processErrors.serving();
  };
  return { config, logger, fail, ready, stopOnSignal: (stop) => stopOnSignal(logger, stop) };
}

/** Refuses to start on a database that lacks this service's migrations. */
export async function requireMigrated(
  start: ServiceStart<{ DATABASE_URL: string }>,
  pendingMigrations: (databaseUrl: string) => Promise<string[]>,
  migrateCommand: string,
): Promise<void> {
  const pending = await pendingMigrations(start.config.DATABASE_URL).catch((error: unknown) =>
    start.fail("cannot reach Postgres at DATABASE_URL", error),
  );
  if (pending.length > 0) {
    start.fail(`the database lacks migrations ${pending.join(", ")}: run \`${migrateCommand}\` first`);
  }
}

function stopOnSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    try {
      await stop();
      await stopTelemetry();
      logger.info("stopped");
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, "unclean shutdown");
      process.exit(1);
    }
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
