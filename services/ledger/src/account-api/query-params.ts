import { MAX_MODEL_CHARS, storableText } from "@gateway/platform";
import { z } from "zod";
import { dateTime, utcDay } from "../http/input-fields.js";
import { cursorParam, type Position } from "./cursor.js";
import { LOG_STATUSES } from "./find-request-logs.js";

// Query parameters of the account API. Bad values are 400s naming the parameter.

export const modelParam = storableText.min(1).max(MAX_MODEL_CHARS).optional();

interface Period {
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Refuses a period whose `to` comes before `from` (or, `strictly`, is not after it). */
export const periodInOrder = <T extends z.ZodType<Period>>(schema: T, strictly: boolean) =>
  schema.refine(({ from, to }) => !from || !to || (strictly ? from < to : from <= to), {
    message: strictly ? "must be later than `from`" : "must not be before `from`",
    path: ["to"],
  });

/**
 * The parameters of a list: created_at `from` (inclusive) `to` (exclusive), model, key,
 * limit, and the cursor, whose position's id must satisfy `cursorId`.
 */
export const listParams = (cursorId: z.ZodType<string>) => ({
  from: dateTime.optional(),
  to: dateTime.optional(),
  model: modelParam,
  key_id: z.uuid().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: cursorParam(cursorId).optional(),
});

/** Parsed list parameters as a ListFilter (list-filter.ts). */
export const toListFilter = <Query extends { key_id?: string | undefined; cursor?: Position | undefined }>({
  key_id,
  cursor,
  ...rest
}: Query) => ({ ...rest, keyId: key_id, after: cursor });

// The account API's queries, shared by its HTTP routes and the console's gRPC calls.

export const usageQuery = periodInOrder(
  z.object({ ...listParams(z.uuid()), status: z.enum(LOG_STATUSES).optional() }),
  true,
).transform(toListFilter);

export const logsQuery = periodInOrder(
  z.object({ ...listParams(z.string()), status: z.enum(LOG_STATUSES).optional() }),
  true,
).transform(toListFilter);

export const statisticsQuery = periodInOrder(
  z.object({ from: utcDay.optional(), to: utcDay.optional(), model: modelParam }),
  false,
);
