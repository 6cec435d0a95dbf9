import { inflateSync } from "node:zlib";
import { queryRows } from "@gateway/stack";
import { expect } from "vitest";
import { solidPng } from "../../simulator/src/gemini/images.js";

export { solidPng };

/** Width and height from a PNG's IHDR, after checking the image data inflates to exactly that many RGB rows. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  const idatLength = bytes.readUInt32BE(33);
  const pixels = inflateSync(bytes.subarray(41, 41 + idatLength));
  expect(pixels.length).toBe(height * (1 + width * 3));
  return { width, height };
}

/** A PNG header with the given dimensions followed by filler: real enough for checks that read headers only. */
export function bulkyPng(width: number, height: number, totalBytes: number): Buffer {
  const png = solidPng([1, 2, 3], width, height);
  return Buffer.concat([png, Buffer.alloc(Math.max(0, totalBytes - png.length))]);
}

/** A 16-bit mono PCM WAV of silence lasting the given seconds. */
export function wav(seconds: number, sampleRate = 8000): Buffer {
  const dataBytes = Math.round(seconds * sampleRate) * 2;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // byte rate
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes)]);
}

export interface BilledRow {
  endpoint: string;
  model: string;
  billed_units: number;
  unit: string | null;
  cost_micros: string;
  estimated: boolean;
  outcome: string;
}

export const billedRows = (databaseUrl: string, requestId: string) =>
  queryRows<BilledRow>(
    databaseUrl,
    "SELECT endpoint, model, billed_units, unit, cost_micros, estimated, outcome FROM ledger.usage_records WHERE request_id = $1",
    [requestId],
  );

/** The group's price multiplier, so expected costs follow whatever the ledger is configured with. */
export async function multiplierOf(databaseUrl: string, group: string): Promise<number> {
  const [row] = await queryRows<{ multiplier_basis_points: number }>(
    databaseUrl,
    "SELECT multiplier_basis_points FROM ledger.model_groups WHERE name = $1",
    [group],
  );
  return row?.multiplier_basis_points ?? 10_000;
}

/** Cost as the ledger computes it for per-unit work: units × price, times the multiplier, rounded up. */
export const unitCost = (units: number, priceMicros: number, multiplier: number) =>
  Math.ceil((units * priceMicros * multiplier) / 10_000);

/**
 * Cost as the ledger computes it for token-billed images: each kind of token times its price per
 * million tokens, rounded up to a whole micro, then the multiplier, rounded up again.
 */
export function imageTokenCost(
  tokens: { text: number; imageInput: number; output: number },
  prices: { text: number; imageInput: number; output: number },
  multiplier: number,
): number {
  const perMillion =
    BigInt(tokens.text) * BigInt(prices.text) +
    BigInt(tokens.imageInput) * BigInt(prices.imageInput) +
    BigInt(tokens.output) * BigInt(prices.output);
  const catalogue = (perMillion + 999_999n) / 1_000_000n;
  return Number((catalogue * BigInt(multiplier) + 9_999n) / 10_000n);
}
