import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConnectionOptions, connect } from "nats";
import { freePort } from "./redis-server.js";

export interface TestNatsOptions {
  // nats-server configuration text (an authorization block, say).
  config?: string;
  // Credentials the readiness probe connects with, when the configuration requires some.
  probe?: Pick<ConnectionOptions, "user" | "pass">;
}

/** A nats-server with JetStream of the test's own, which the test may stop and start again (same store). */
export class TestNats {
  private child: ChildProcess | undefined;
  private readonly store = mkdtempSync(join(tmpdir(), "gw-nats-"));

  private constructor(
    readonly port: number,
    private readonly options: TestNatsOptions,
  ) {}

  static async start(options: TestNatsOptions = {}): Promise<TestNats> {
    const nats = TestNats.launch(await freePort(), options);
    await nats.ready();
    return nats;
  }

  /**
   * Starts the server on `port` without waiting for it: a cluster's nodes must all run before
   * any of them serves JetStream (it needs a meta leader, elected by a quorum of them).
   */
  static launch(port: number, options: TestNatsOptions): TestNats {
    const nats = new TestNats(port, options);
    nats.spawn();
    return nats;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async resume(): Promise<void> {
    this.spawn();
    await this.ready();
  }

  private spawn(): void {
    const binary = process.env.NATS_SERVER_BINARY ?? "/usr/sbin/nats-server";
    const config = join(this.store, "nats.conf");
    if (this.options.config) writeFileSync(config, this.options.config, { mode: 0o600 });
    const args = ["-a", "127.0.0.1", "-p", String(this.port), "-js", "-sd", this.store];
    this.child = spawn(binary, [...args, ...(this.options.config ? ["-c", config] : [])], { stdio: "ignore" });
  }

  /** Waits until the server answers JetStream's account info (in a cluster: has a meta leader). */
  async ready(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const connection = await connect({ servers: this.url, reconnect: false, timeout: 500, ...this.options.probe });
        try {
          await (await connection.jetstreamManager()).getAccountInfo();
        } finally {
          await connection.close();
        }
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
