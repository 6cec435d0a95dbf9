import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadUsageDefinition } from "@gateway/platform";
import { testServers, uniqueNamespace } from "@gateway/stack";
import { connect, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const entry = fileURLToPath(new URL("../dist/usage-stream-main.js", import.meta.url));

/** Runs the Kubernetes Job's command as the Job would, with only these settings. */
async function runJob(env: Record<string, string>): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [entry], {
      env: { PATH: process.env.PATH ?? "", NATS_URL: testServers.natsUrl, GATEWAY_ENV: "development", ...env },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("the usage-stream Job", () => {
  const namespace = uniqueNamespace("job");
  const definition = loadUsageDefinition(namespace);
  const { stream, consumer } = definition;
  let nats: NatsConnection;

  beforeAll(async () => {
    nats = await connect({ servers: testServers.natsUrl });
  });
  afterAll(async () => {
    const manager = await nats.jetstreamManager();
    await manager.streams.delete(stream.name).catch(() => false);
    await manager.streams.delete(definition.request_logs.stream.name).catch(() => false);
    await nats.close();
  });

  it("creates the usage stream and ledger's durable consumer from infra/nats/usage.json, and may run again", async () => {
    for (let run = 0; run < 2; run += 1) {
      const { code, output } = await runJob({ GATEWAY_NAMESPACE: namespace, NATS_STREAM_REPLICAS: "1" });
      expect(code, output).toBe(0);
      expect(output).toContain("usage stream and consumer applied");
    }
    const manager = await nats.jetstreamManager();
    const info = await manager.streams.info(stream.name);
    expect(info.config).toMatchObject({ subjects: stream.subjects, num_replicas: 1 });
    expect((await manager.consumers.info(stream.name, consumer.durable_name)).config.durable_name).toBe(
      consumer.durable_name,
    );
  });

  it("creates the request logs' stream, a work queue, and ledger's durable consumer of it beside the usage one", async () => {
    const { stream: logs, consumer: logConsumer } = definition.request_logs;
    const { code, output } = await runJob({ GATEWAY_NAMESPACE: namespace, NATS_STREAM_REPLICAS: "1" });
    expect(code, output).toBe(0);
    const manager = await nats.jetstreamManager();
    expect((await manager.streams.info(logs.name)).config).toMatchObject({
      subjects: logs.subjects,
      retention: "workqueue",
      num_replicas: 1,
    });
    expect((await manager.consumers.info(logs.name, logConsumer.durable_name)).config.durable_name).toBe(
      logConsumer.durable_name,
    );
  });

  it("asks for NATS_STREAM_REPLICAS replicas: one server refuses three, and the Job fails saying why", async () => {
    // A new stream: a single server refuses to create it replicated (an update it would let pass).
    const { code, output } = await runJob({ GATEWAY_NAMESPACE: uniqueNamespace("job"), NATS_STREAM_REPLICAS: "3" });
    expect(code).toBe(1);
    expect(output).toContain("cannot apply the usage stream definition");
    expect(output.toLowerCase()).toContain("replicas");
  });
});
