import { join } from "node:path";
import {
  createLogger,
  ensureUsageStream,
  loadUsageDefinition,
  natsConnectOptions,
  type StreamDefinition,
} from "@gateway/platform";
import { LogCapture } from "@gateway/proto/common/v1/common";
import { type RequestLog, UsageEvent, UsageOutcome } from "@gateway/proto/events/v1/events";
import { eventually, testServers, uniqueNamespace } from "@gateway/stack";
import { connect, type JetStreamManager, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spoolDirectories } from "../test/spool-files.fixtures.js";
import { requestLogEntriesOf, requestLogMessages } from "./request-log-batches.js";
import { UsageJournal } from "./usage-journal.js";
import { UsagePublisher } from "./usage-publisher.js";

const logger = createLogger("test", "silent");
const directory = spoolDirectories("gw-publisher-test-");

const full: RequestLog = {
  capture: LogCapture.LOG_CAPTURE_FULL,
  requestBody: '{"messages":[{"role":"user","content":"Hello"}]}',
  responseBody: '{"choices":[{"index":0,"content":"Hi."}]}',
  truncated: false,
  errorMessage: "",
};
const metadata: RequestLog = { ...full, capture: LogCapture.LOG_CAPTURE_METADATA, requestBody: "", responseBody: "" };

const event = (requestId: string) =>
  UsageEvent.fromPartial({
    requestId,
    accountId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    keyId: "7c9e6679-7425-40de-944b-e07fc1f90ae8",
    vendor: "sim",
    outcome: UsageOutcome.USAGE_OUTCOME_OK,
    startedAtMs: 1_764_000_000_000,
  });

describe("the usage publisher's request logs", () => {
  const namespace = uniqueNamespace("publisher");
  const definition = loadUsageDefinition(namespace);
  let nats: NatsConnection;
  let manager: JetStreamManager;

  beforeAll(async () => {
    nats = await connect(natsConnectOptions({ NATS_URL: testServers.natsUrl }));
    manager = await nats.jetstreamManager();
    for (const part of [definition, definition.request_logs]) await ensureUsageStream(manager, part);
  });
  afterAll(async () => {
    for (const { stream } of [definition, definition.request_logs]) await manager.streams.delete(stream.name);
    await nats.close();
  });

  const publisher = (path: string) =>
    new UsagePublisher(nats, namespace, logger, {
      directory: path,
      maxBytes: 1024 * 1024,
      retryIntervalMs: 100,
      journal: { undelivered: () => undefined },
      requestLogs: { directory: join(path, "request-logs"), maxBytes: 1024 * 1024 },
    });

  /** Every message of a stream, oldest first. */
  const messagesOf = async ({ stream }: StreamDefinition) => {
    const { state } = await manager.streams.info(stream.name);
    const found: Uint8Array[] = [];
    for (let sequence = state.first_seq; sequence <= state.last_seq && state.messages > 0; sequence += 1) {
      found.push((await manager.streams.getMessage(stream.name, { seq: sequence })).data);
    }
    return found;
  };

  it("sends an entry kept in full in a batch of its own, and one kept as metadata in its event", async () => {
    const sender = publisher(directory());
    sender.publish(event("req-full"), () => full);
    sender.publish(event("req-metadata"), () => metadata);
    await sender.close();

    const events = (await messagesOf(definition)).map((data) => UsageEvent.decode(data));
    expect(events.map(({ requestId, log }) => [requestId, log?.capture])).toEqual([
      ["req-full", undefined],
      ["req-metadata", LogCapture.LOG_CAPTURE_METADATA],
    ]);
    const entries = (await messagesOf(definition.request_logs)).flatMap(requestLogEntriesOf);
    expect(entries).toEqual([
      { requestId: "req-full", accountId: event("x").accountId, startedAtMs: 1_764_000_000_000, log: full },
    ]);
  });

  it("publishes the request log batch a killed predecessor journaled and never saw stored", async () => {
    const path = directory();
    const [batch] = requestLogMessages(`${namespace}.request-logs.router`, [
      { requestId: "req-journaled", accountId: event("x").accountId, startedAtMs: 1, log: full },
    ]);
    // Appended and never settled: the process died before JetStream acked it.
    new UsageJournal(join(path, "request-logs")).append({
      subject: batch!.subject,
      msgID: batch!.id,
      data: Buffer.from(batch!.data).toString("base64"),
      headers: {},
    });
    const successor = publisher(path);
    await eventually(async () => {
      const entries = (await messagesOf(definition.request_logs)).flatMap(requestLogEntriesOf);
      return entries.some(({ requestId }) => requestId === "req-journaled") ? true : undefined;
    });
    await successor.close();
  });
});
