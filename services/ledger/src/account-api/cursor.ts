import { storableText } from "@gateway/platform";
import { z } from "zod";
import { dateTime } from "../http/input-fields.js";

/** Where a page ended: lists are ordered newest first by (created_at, id). */
export interface Position {
  createdAt: Date;
  id: string;
}

const payload = z.tuple([dateTime, storableText.min(1).max(300)]);

/** An opaque `next_cursor`: base64url of the last row's position. */
export const encodeCursor = ({ createdAt, id }: Position): string =>
  Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString("base64url");

function decodeCursor(text: string): Position | undefined {
  try {
    const parsed = payload.safeParse(JSON.parse(Buffer.from(text, "base64url").toString("utf8")));
    return parsed.success ? { createdAt: parsed.data[0], id: parsed.data[1] } : undefined;
  } catch {
    return undefined;
  }
}

/** The `cursor` query parameter; `id` checks the position's id (a uuid where the column is one). */
export const cursorParam = (id: z.ZodType<string>) =>
  z.string().transform((text, context): Position => {
    const position = decodeCursor(text);
    if (position && id.safeParse(position.id).success) return position;
    context.addIssue({ code: "custom", message: "must be the next_cursor of an earlier page" });
    return z.NEVER;
  });

/** The Prisma condition for rows after `after` in newest-first (created_at, id) order. */
export const rowsAfter = (after: Position | undefined) =>
  after && { OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }] };

/** Newest-first keyset order, the one `rowsAfter` pages through. */
export const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];
