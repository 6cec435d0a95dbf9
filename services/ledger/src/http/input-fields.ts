import { storableText } from "@gateway/platform";
import { z } from "zod";

// Fields the admin and account APIs share. Each is refused as the client's 400 where Postgres
// would otherwise fail the query: NUL characters in text, years it cannot hold (or that no one means).

const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(10_000, 0, 1);
const inRange = (date: Date) => date.getTime() >= EARLIEST && date.getTime() < LATEST;
const RANGE = "must be between 1970-01-01 and 9999-12-31 (UTC)";

/** An ISO 8601 date-time with `Z` or an offset. */
export const dateTime = z.iso
  .datetime({ offset: true })
  .transform((text) => new Date(text))
  .refine(inRange, RANGE);

/** A UTC day, YYYY-MM-DD. */
export const utcDay = z.iso
  .date()
  .transform((text) => new Date(`${text}T00:00:00Z`))
  .refine(inRange, RANGE);

/** A name or key an operator or client chooses, stored as text. */
export const label = storableText.trim().min(1).max(200);
