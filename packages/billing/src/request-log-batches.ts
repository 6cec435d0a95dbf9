import { randomUUID } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { RequestLogBatch, type RequestLogEntry } from "@gateway/proto/events/v1/events";
import { headers as natsHeaders } from "nats";
import type { JetStreamMessage } from "./jetstream-batch.js";

// Entries are packed into one message up to this many bytes before compression. One entry
// holds at most GATEWAY_REQUEST_LOG_MAX_BYTES (512 KiB at most) of bodies, so even an
// incompressible message stays under NATS's 1 MiB payload limit.
const BATCH_BYTES = 256 * 1024;
// Fastest: a few hundred bytes more per batch than level 6, at a third of the CPU.
const GZIP_LEVEL = 1;
// Below this, a batch goes as it is: gzip would save a few hundred bytes and cost 15-25 µs of
// router CPU per batch (measured on the loaded development machine), the whole of what
// sending the entries apart adds.
const COMPRESS_FROM_BYTES = 2 * 1024;
// How a gzip stream starts; an encoded RequestLogBatch starts with field 1's tag (0x0a) instead.
const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * The entries as JetStream messages on `subject`, RequestLogBatch protobufs of up to
 * BATCH_BYTES each (one larger entry goes alone), gzip-compressed from COMPRESS_FROM_BYTES,
 * each with a message id of its own: JetStream drops a spooled or journaled batch published twice.
 */
export function requestLogMessages(subject: string, entries: readonly RequestLogEntry[]): JetStreamMessage[] {
  const batches: RequestLogEntry[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = entrySize(entry);
    const current = batches.at(-1);
    if (current && bytes + size <= BATCH_BYTES) {
      current.push(entry);
      bytes += size;
    } else {
      batches.push([entry]);
      bytes = size;
    }
  }
  return batches.map((batch) => ({
    subject,
    id: randomUUID(),
    data: compressed(RequestLogBatch.encode({ entries: batch }).finish()),
    headers: natsHeaders(),
  }));
}

const compressed = (encoded: Uint8Array) =>
  encoded.byteLength < COMPRESS_FROM_BYTES ? encoded : gzipSync(encoded, { level: GZIP_LEVEL });

const isGzip = (data: Uint8Array) => data[0] === GZIP_MAGIC[0] && data[1] === GZIP_MAGIC[1];

/** The entries of one message `requestLogMessages` made; throws on anything else. */
export function requestLogEntriesOf(data: Uint8Array): RequestLogEntry[] {
  return RequestLogBatch.decode(isGzip(data) ? gunzipSync(data) : data).entries;
}

// The entry's encoded size, near enough: its strings' bytes and room for the fields' tags and lengths.
const entrySize = ({ requestId, accountId, log }: RequestLogEntry) =>
  64 +
  requestId.length +
  accountId.length +
  (log
    ? Buffer.byteLength(log.requestBody) + Buffer.byteLength(log.responseBody) + Buffer.byteLength(log.errorMessage)
    : 0);
