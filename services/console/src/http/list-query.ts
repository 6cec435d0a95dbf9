import type { ListFilter } from "@gateway/proto/ledger/v1/console";
import { z } from "zod";
import { parseInput } from "./console-error.js";

const time = z.iso.datetime({ offset: true }).transform((text) => Date.parse(text));

const listQuery = z.object({
  from: time.optional(),
  to: time.optional(),
  model: z.string().min(1).max(256).optional(),
  keyId: z.uuid().optional(),
  status: z.enum(["ok", "error", "client_cancelled", "vendor_error", "stream_broken"]).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});

/** The usage and logs filters of the query string, as ledger's ListFilter plus the status. */
export function listFilterOf(query: unknown): { filter: ListFilter; status: string | undefined } {
  const parsed = parseInput(listQuery, query);
  return {
    filter: {
      fromMs: parsed.from ?? 0,
      toMs: parsed.to ?? 0,
      model: parsed.model,
      keyId: parsed.keyId,
      limit: parsed.limit,
      cursor: parsed.cursor ?? "",
    },
    status: parsed.status,
  };
}

export const utcDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a day YYYY-MM-DD");
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);
