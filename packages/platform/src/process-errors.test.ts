import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The built module, run in a child process: these handlers decide whether that process lives.
const moduleUrl = new URL("../dist/process-errors.js", import.meta.url).href;
const telemetryUrl = new URL("../dist/telemetry.js", import.meta.url).href;
const contextUrl = new URL("../dist/request-context.js", import.meta.url).href;

/** Runs `body` after installing the handlers; returns the exit code and the JSON lines logged. */
function run(body: string) {
  const script = `
    const { watchProcessErrors } = await import(${JSON.stringify(moduleUrl)});
    const { startTelemetry } = await import(${JSON.stringify(telemetryUrl)});
    const { withRequestId } = await import(${JSON.stringify(contextUrl)});
    startTelemetry("test", {});
    const line = (level) => (fields, msg) =>
      console.log(JSON.stringify({ level, msg, request_id: fields.request_id, err: String(fields.err?.message ?? fields.err) }));
    const errors = watchProcessErrors({ error: line("error"), fatal: line("fatal") });
    ${body}`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL(".", import.meta.url)),
    encoding: "utf8",
    timeout: 20_000,
  });
  const lines = child.stdout
    .split("\n")
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Record<string, unknown>);
  return { code: child.status, lines };
}

describe("watchProcessErrors", () => {
  it("logs an error nothing handled with its request id, and goes on serving", () => {
    const { code, lines } = run(`
      errors.serving();
      withRequestId("req_1", () => setTimeout(() => { throw new Error("one request's bug"); }, 1));
      withRequestId("req_2", () => setTimeout(() => Promise.reject(new Error("a forgotten promise")), 1));
      setTimeout(() => console.log(JSON.stringify({ msg: "still serving" })), 50);`);
    expect(code).toBe(0);
    expect(lines).toEqual([
      {
        level: "error",
        msg: "uncaught exception; the process goes on serving",
        request_id: "req_1",
        err: "one request's bug",
      },
      {
        level: "error",
        msg: "unhandled rejection; the process goes on serving",
        request_id: "req_2",
        err: "a forgotten promise",
      },
      { msg: "still serving" },
    ]);
  });

  it("stops the process for an error during start-up", () => {
    const { code, lines } = run(
      `setTimeout(() => { throw new Error("half started"); }, 1); setTimeout(() => {}, 5000);`,
    );
    expect(code).toBe(1);
    expect(lines).toEqual([{ level: "fatal", msg: "uncaught exception; the process stops", err: "half started" }]);
  });

  it("stops the process when it cannot listen or is out of descriptors", () => {
    for (const fault of [
      `Object.assign(new Error("in use"), { code: "EADDRINUSE", syscall: "listen" })`,
      `Object.assign(new Error("no descriptors"), { code: "EMFILE" })`,
    ]) {
      const { code, lines } = run(
        `errors.serving(); setTimeout(() => { throw ${fault}; }, 1); setTimeout(() => {}, 5000);`,
      );
      expect(code).toBe(1);
      expect(lines[0]).toMatchObject({ level: "fatal" });
    }
  });
});
