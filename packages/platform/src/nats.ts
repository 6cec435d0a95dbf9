import { readFileSync } from "node:fs";
import {
  AckPolicy,
  type ConnectionOptions,
  connect,
  credsAuthenticator,
  DeliverPolicy,
  headers,
  type JetStreamManager,
  type MsgHdrs,
  type NatsConnection,
  nanos,
  RetentionPolicy,
  StorageType,
} from "nats";
import { z } from "zod";
import { injectTraceContext, withExtractedContext } from "./telemetry.js";

const streamDefinitionSchema = z.object({
  stream: z.object({
    name: z.string(),
    subjects: z.array(z.string()).min(1),
    storage: z.enum(["file", "memory"]),
    retention: z.enum(["limits", "workqueue", "interest"]),
    max_age_seconds: z.number().int().positive(),
    duplicate_window_seconds: z.number().int().positive(),
    num_replicas: z.number().int().positive(),
  }),
  consumer: z.object({
    durable_name: z.string(),
    ack_policy: z.literal("explicit"),
    ack_wait_seconds: z.number().int().positive(),
    max_ack_pending: z.number().int().positive(),
    deliver_policy: z.literal("all"),
  }),
});

// The usage stream and consumer at the top, the request logs' beside them.
const usageDefinitionSchema = streamDefinitionSchema.extend({ request_logs: streamDefinitionSchema });

const defaultDefinitionPath = new URL("../../../infra/nats/usage.json", import.meta.url);

/** Subjects and stream names of one gateway namespace. */
export function natsNames(namespace: string) {
  return {
    usageSubject: (vendor: string) => `${namespace}.usage.${vendor}`,
    requestLogSubject: `${namespace}.request-logs.router`,
    keyRevokedSubject: `${namespace}.keys.revoked`,
    catalogueChangedSubject: `${namespace}.catalogue.changed`,
  };
}

export function loadUsageDefinition(namespace: string, path: string | URL = defaultDefinitionPath) {
  const text = readFileSync(path, "utf8").replaceAll("{NS}", namespace.toUpperCase()).replaceAll("{ns}", namespace);
  return usageDefinitionSchema.parse(JSON.parse(text));
}

export type UsageDefinition = ReturnType<typeof loadUsageDefinition>;

/** One stream and its durable consumer: the usage events', or the request logs'. */
export type StreamDefinition = z.infer<typeof streamDefinitionSchema>;

/** The usage definition as this deployment runs it: the file, with the configured stream replicas (on both streams). */
export function configuredUsageDefinition(config: {
  GATEWAY_NAMESPACE: string;
  NATS_STREAM_REPLICAS?: number | undefined;
  USAGE_STREAM_DEFINITION?: string | undefined;
}): UsageDefinition {
  const definition = loadUsageDefinition(config.GATEWAY_NAMESPACE, config.USAGE_STREAM_DEFINITION);
  const replicated = <T extends StreamDefinition>(part: T): T => ({
    ...part,
    stream: { ...part.stream, num_replicas: config.NATS_STREAM_REPLICAS ?? part.stream.num_replicas },
  });
  return { ...replicated(definition), request_logs: replicated(definition.request_logs) };
}

/** Creates or updates a stream (the usage one, or the request logs') so publishers and the consumer agree on it. */
export async function ensureUsageStream(jsm: JetStreamManager, definition: StreamDefinition): Promise<void> {
  const { stream } = definition;
  const config = {
    name: stream.name,
    subjects: stream.subjects,
    storage: stream.storage === "file" ? StorageType.File : StorageType.Memory,
    retention: {
      limits: RetentionPolicy.Limits,
      workqueue: RetentionPolicy.Workqueue,
      interest: RetentionPolicy.Interest,
    }[stream.retention],
    max_age: nanos(stream.max_age_seconds * 1000),
    duplicate_window: nanos(stream.duplicate_window_seconds * 1000),
    num_replicas: stream.num_replicas,
  };
  try {
    await jsm.streams.info(stream.name);
    await jsm.streams.update(stream.name, config);
  } catch (error) {
    if (!String(error).includes("stream not found")) throw error;
    await jsm.streams.add(config);
  }
}

export async function ensureUsageConsumer(jsm: JetStreamManager, definition: StreamDefinition): Promise<void> {
  const { consumer, stream } = definition;
  await jsm.consumers.add(stream.name, {
    durable_name: consumer.durable_name,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(consumer.ack_wait_seconds * 1000),
    max_ack_pending: consumer.max_ack_pending,
    deliver_policy: DeliverPolicy.All,
  });
}

export interface NatsSettings {
  NATS_URL: string;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_CREDS?: string | undefined;
}

/**
 * The servers and this service's credentials: a creds file (NATS_CREDS), NATS_USER and
 * NATS_PASSWORD, or user:password in NATS_URL (taken out of the URL, which the client would not read).
 */
export function natsConnectOptions(settings: NatsSettings): ConnectionOptions {
  let user = settings.NATS_USER;
  let pass = settings.NATS_PASSWORD;
  const servers = settings.NATS_URL.split(",").map((server) => {
    const url = new URL(server.includes("://") ? server : `nats://${server}`);
    if (!url.username) return server;
    user ??= decodeURIComponent(url.username);
    pass ??= decodeURIComponent(url.password);
    return `${url.protocol}//${url.host}`;
  });
  if (settings.NATS_CREDS) {
    return { servers, authenticator: credsAuthenticator(new Uint8Array(readFileSync(settings.NATS_CREDS))) };
  }
  return { servers, ...(user !== undefined && { user, pass }) };
}

export async function connectNats(settings: NatsSettings, name: string): Promise<NatsConnection> {
  return connect({
    ...natsConnectOptions(settings),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // Otherwise every publish and request captures a stack trace up front for an error that
    // almost never comes (~3 % of router's CPU at load); a timeout still names its subject.
    noAsyncTraces: true,
  });
}

export function tracedHeaders(): MsgHdrs {
  const result = headers();
  injectTraceContext((key, value) => result.set(key, value));
  return result;
}

export function withMessageContext<T>(messageHeaders: MsgHdrs | undefined, work: () => T): T {
  return withExtractedContext((key) => (messageHeaders?.has(key) ? messageHeaders.get(key) : undefined), work);
}
