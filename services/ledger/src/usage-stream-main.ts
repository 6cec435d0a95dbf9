// Creates or updates the usage stream and the request logs' stream, each with ledger's durable
// consumer, then exits: the Kubernetes Job gateway-usage-stream runs this before the services
// roll (k8s/base). Ledger applies the same definitions at start-up; the Job makes them exist,
// replicated, first.
import {
  beginService,
  commonConfig,
  configuredUsageDefinition,
  connectNats,
  ensureUsageConsumer,
  ensureUsageStream,
  loadConfig,
  stopTelemetry,
} from "@gateway/platform";
import { z } from "zod";

const start = beginService("usage-stream", () => loadConfig(z.object(commonConfig)));
const { config, logger } = start;
const nats = await connectNats(config, "usage-stream").catch((error: unknown) =>
  start.fail("cannot reach NATS at NATS_URL", error),
);
const definition = configuredUsageDefinition(config);
try {
  const manager = await nats.jetstreamManager();
  for (const streamDefinition of [definition, definition.request_logs]) {
    await ensureUsageStream(manager, streamDefinition);
    await ensureUsageConsumer(manager, streamDefinition);
  }
} catch (error) {
  start.fail("cannot apply the usage stream definition", error);
}
logger.info(
  {
    stream: definition.stream.name,
    replicas: definition.stream.num_replicas,
    consumer: definition.consumer.durable_name,
    request_logs: definition.request_logs.stream.name,
  },
  "usage stream and consumer applied",
);
await nats.drain();
await stopTelemetry();
