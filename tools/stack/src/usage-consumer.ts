import { loadUsageDefinition, natsConnectOptions } from "@gateway/platform";
import { connect } from "nats";
import { testServers } from "./test-resources.js";

/** Ledger's durable consumer of a namespace's usage stream, as JetStream counts it. */
export interface UsageConsumerState {
  // Delivered to a ledger replica and not acknowledged yet (held in a batch).
  ackPending: number;
  // Not delivered to any replica yet.
  pending: number;
}

export async function usageConsumerState(
  namespace: string,
  natsUrl = testServers.natsUrl,
): Promise<UsageConsumerState> {
  const nats = await connect(natsConnectOptions({ NATS_URL: natsUrl }));
  try {
    const manager = await nats.jetstreamManager();
    const { stream, consumer } = loadUsageDefinition(namespace);
    const info = await manager.consumers.info(stream.name, consumer.durable_name);
    return { ackPending: info.num_ack_pending, pending: info.num_pending };
  } finally {
    await nats.close();
  }
}
