import { z } from "zod";
import type { Position } from "../account-api/cursor.js";
import { newestFirst, rowsAfter } from "../account-api/cursor.js";
import type { Database } from "../database.js";
import type { Prisma } from "../generated/prisma/client.js";

const isUuid = (text: string) => z.uuid().safeParse(text).success;

/** Accounts whose id is the text, whose name or a sign-in's email or name holds it, or one of whose keys starts with it. */
function matching(text: string): Prisma.AccountWhereInput {
  const holds = { contains: text, mode: "insensitive" as const };
  return {
    OR: [
      ...(isUuid(text) ? [{ id: text.toLowerCase() }] : []),
      { name: holds },
      { identities: { some: { OR: [{ email: holds }, { displayName: holds }] } } },
      // Prefixes are shown as sk-gw-abcdef; a longer pasted key still finds its account.
      { apiKeys: { some: { keyPrefix: { startsWith: text.slice(0, 12) } } } },
    ],
  };
}

/** A page of accounts, newest first, filtered by `text` when given; reads `limit + 1` rows (see account-api/page.ts). */
export function searchAccounts(database: Database, text: string | undefined, limit: number, after?: Position) {
  const where: Prisma.AccountWhereInput = { AND: [rowsAfter(after) ?? {}, text ? matching(text) : {}] };
  return database.account.findMany({ where, orderBy: newestFirst, take: limit + 1 });
}
