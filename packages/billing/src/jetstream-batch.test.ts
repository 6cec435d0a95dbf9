import { TestNats } from "@gateway/stack";
import { connect, DiscardPolicy, headers, type NatsConnection } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JetStreamBatchPublisher, type JetStreamMessage } from "./jetstream-batch.js";

let server: TestNats;
let nats: NatsConnection;

beforeAll(async () => {
  server = await TestNats.start();
  nats = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  const manager = await nats.jetstreamManager();
  await manager.streams.add({ name: "STORED", subjects: ["stored.>"], duplicate_window: 60_000_000_000 });
  await manager.streams.add({ name: "ONE", subjects: ["one.>"], max_msgs: 1, discard: DiscardPolicy.New });
});

afterAll(async () => {
  await nats.close();
  await server.remove();
});

const message = (subject: string, id: string): JetStreamMessage => ({
  subject,
  id,
  data: new TextEncoder().encode(id),
  headers: headers(),
});

const outcomes = (acks: Promise<void>[]) =>
  Promise.all(
    acks.map((ack) =>
      ack.then(
        () => "acked",
        (error: Error) => error.message,
      ),
    ),
  );

describe("publishing to JetStream in batches", () => {
  it("resolves each message once stored, and a repeated id without storing it twice", async () => {
    const publisher = new JetStreamBatchPublisher(nats);
    const acks = publisher.publishAll(["a", "b", "c", "a"].map((id) => message("stored.usage", id)));
    expect(await outcomes(acks)).toEqual(["acked", "acked", "acked", "acked"]);
    const info = await (await nats.jetstreamManager()).streams.info("STORED");
    expect(info.state.messages).toBe(3);
  });

  it("rejects a message JetStream refuses, and one no stream listens on, beside one it stores", async () => {
    const publisher = new JetStreamBatchPublisher(nats);
    const acks = publisher.publishAll([
      message("one.usage", "first"),
      message("one.usage", "second"),
      message("nowhere.usage", "lost"),
    ]);
    const [first, refused, unheard] = await outcomes(acks);
    expect(first).toBe("acked");
    expect(refused).toMatch(/JetStream refused the message: maximum messages exceeded/);
    expect(unheard).toMatch(/JetStream publish failed: 503/);
  });

  it("rejects the messages of a batch whose acks do not come in time", async () => {
    const publisher = new JetStreamBatchPublisher(nats, 300);
    await server.stop();
    try {
      const acks = publisher.publishAll([message("stored.usage", "late-1"), message("stored.usage", "late-2")]);
      expect(await outcomes(acks)).toEqual(["no JetStream ack within 300 ms", "no JetStream ack within 300 ms"]);
    } finally {
      await server.resume();
    }
  });
});
