import { requestLogEntriesOf } from "@gateway/billing";
import type { Logger, SqlPool, StreamDefinition } from "@gateway/platform";
import type { RequestLogEntry } from "@gateway/proto/events/v1/events";
import type { JsMsg, NatsConnection } from "nats";
import { type BatchedConsumer, startBatchedConsumer } from "../jetstream/batched-consumer.js";
import { uuidPattern } from "../usage/validate-usage-event.js";
import { recordRequestLogs } from "./record-request-logs.js";

// Messages per statement: each holds the entries of one router batch (up to 256 KiB before
// compression), so a statement stays within some megabytes.
const BATCH_SIZE = 64;
// Bodies are nobody's balance: waiting twice as long as a usage batch gathers twice as many per
// statement, and at modest rates the statement's own cost is most of ledger's.
const BATCH_WAIT_MS = 200;

interface ReceivedLogs {
  message: JsMsg;
  entries: RequestLogEntry[];
}

/**
 * Consumes the request log batches router sends apart from its usage events (the stream in
 * infra/nats/usage.json's request_logs) and stores their entries in batches, one statement
 * each. A batch's messages are acked only after its statement committed; if it fails they
 * are nak'ed with a growing delay and come back, and the unique request_id makes the retry
 * safe. The stream is a work queue: an acked batch leaves it.
 */
export async function startRequestLogConsumer(dependencies: {
  nats: NatsConnection;
  definition: StreamDefinition;
  pool: SqlPool;
  logger: Logger;
}): Promise<BatchedConsumer> {
  const { nats, definition, pool, logger } = dependencies;
  return startBatchedConsumer(
    {
      nats,
      definition,
      logger,
      batching: { maxSize: BATCH_SIZE, maxWaitMs: BATCH_WAIT_MS, concurrency: 1 },
      pullAhead: BATCH_SIZE * 2,
      messages: { consuming: "consuming request logs", malformed: "dropping malformed request log batch" },
    },
    {
      decode: (message): ReceivedLogs | { problem: string } => {
        const decoded = decodeEntries(message);
        if ("problem" in decoded) return decoded;
        for (const problem of decoded.refused) {
          logger.error({ problem, sequence: message.seq }, "dropping malformed request log entry");
        }
        return { message, entries: decoded.entries };
      },
      commit: (batch) =>
        recordRequestLogs(
          pool,
          batch.flatMap(({ entries }) => entries),
        ),
      committed(batch, stored) {
        logger.debug({ received: batch.length, stored }, "request log batch");
      },
      failed(batch, error) {
        logger.error({ err: error, batches: batch.length }, "storing request logs failed; they will be redelivered");
      },
    },
  );
}

/** The batch's entries the database would take; one it would refuse must not fail the whole statement on every retry. */
function decodeEntries(message: JsMsg): { entries: RequestLogEntry[]; refused: string[] } | { problem: string } {
  let entries: RequestLogEntry[];
  try {
    entries = requestLogEntriesOf(message.data);
  } catch (error) {
    return { problem: `not a request log batch: ${error instanceof Error ? error.message : String(error)}` };
  }
  const refused: string[] = [];
  const kept = entries.filter((entry) => {
    const problem = entryProblem(entry);
    if (problem) refused.push(`${entry.requestId}: ${problem}`);
    return problem === undefined;
  });
  return { entries: kept, refused };
}

// The latest time a Date holds: a later start could not be stored.
const MAX_DATE_MS = 8.64e15;

function entryProblem({ requestId, accountId, startedAtMs }: RequestLogEntry): string | undefined {
  if (!requestId) return "request_id is empty";
  if (!uuidPattern.test(accountId)) return `account_id is not a uuid: ${accountId}`;
  if (!Number.isInteger(startedAtMs) || startedAtMs < 0 || startedAtMs > MAX_DATE_MS) {
    return `started_at_ms out of range: ${startedAtMs}`;
  }
  return undefined;
}
