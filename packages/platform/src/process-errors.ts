import { currentRequestId } from "./request-context.js";

/** The part of a logger this needs; the simulator passes its own JSON-line writer. */
export interface ErrorLog {
  error(fields: Record<string, unknown>, message: string): void;
  fatal(fields: Record<string, unknown>, message: string): void;
}

// Errors that leave the process itself unable to serve, where only a restart helps: it
// cannot listen, or it ran out of memory or file descriptors.
const fatalCodes = new Set(["EADDRINUSE", "EADDRNOTAVAIL", "ENOMEM", "EMFILE", "ENFILE", "ERR_WORKER_OUT_OF_MEMORY"]);

function isFatal(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return syscall === "listen" || (typeof code === "string" && fatalCodes.has(code));
}

/**
 * Installs the process's last line of defence for errors nothing handled. Such an error is
 * a bug, but almost always one request's: it is logged at `error` level with that request's
 * id (`pnpm start` echoes it, tests look for the message) and the process goes on serving
 * everyone else. It exits (1, for its supervisor to restart it) only when the state is
 * genuinely fatal:
 * - before `serving()` is called: a half-finished start-up cannot be trusted;
 * - the process cannot listen (EADDRINUSE, EADDRNOTAVAIL, any `listen` failure);
 * - it is out of memory or file descriptors (ENOMEM, ERR_WORKER_OUT_OF_MEMORY, EMFILE, ENFILE).
 */
export function watchProcessErrors(log: ErrorLog): { serving(): void } {
  let serving = false;
  const report = (kind: "uncaught exception" | "unhandled rejection") => (error: unknown) => {
    const fields = { err: error, request_id: currentRequestId() };
    if (serving && !isFatal(error)) {
      log.error(fields, `${kind}; the process goes on serving`);
      return;
    }
    log.fatal(fields, `${kind}; the process stops`);
    process.exit(1);
  };
  process.on("uncaughtException", report("uncaught exception"));
  process.on("unhandledRejection", report("unhandled rejection"));
  return {
    serving: () => {
      serving = true;
    },
  };
}
