import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "nats";
import { freePort } from "./redis-server.js";

/** A nats-server with JetStream of the test's own, which the test may stop and start again (same store). */
export class TestNats {
  private child: ChildProcess | undefined;
  private readonly store = mkdtempSync(join(tmpdir(), "gw-nats-"));

  private constructor(readonly port: number) {}

  static async start(): Promise<TestNats> {
    const nats = new TestNats(await freePort());
    await nats.resume();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    const binary = process.env.NATS_SERVER_BINARY ?? "/usr/sbin/nats-server";
    this.child = spawn(binary, ["-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", this.store], {
      stdio: "ignore",
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        const connection = await connect({ servers: this.url, reconnect: false, timeout: 500 });
        await (await connection.jetstreamManager()).getAccountInfo();
        await connection.close();
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    child.kill("SIGKILL");
    await once(child, "exit");
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.store, { recursive: true, force: true });
  }
}
