import { randomUUID } from "node:crypto";
import type { StoredResponse } from "@gateway/proto/ledger/v1/ledger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteExpiredResponses, StoredResponses } from "../src/responses/stored-responses.js";
import { type MigratedDatabase, openMigratedDatabase } from "./migrated-database.js";

let migrated: MigratedDatabase;
let responses: StoredResponses;

beforeAll(async () => {
  migrated = await openMigratedDatabase();
  responses = new StoredResponses(migrated.prisma, 3_600);
});
afterAll(() => migrated?.close());

const stored = (text: string): StoredResponse => ({
  responseJson: JSON.stringify({ id: "resp_x", output_text: text }),
  conversation: [{ role: "user", text, parts: [], toolCalls: [] } as unknown as StoredResponse["conversation"][number]],
});

describe("stored responses", () => {
  it("keeps, reads and deletes a response within its account only", async () => {
    const accountId = randomUUID();
    const key = { accountId, responseId: `resp_${randomUUID()}` };
    expect(await responses.store(key, stored("kept"))).toBe(true);
    const loaded = await responses.load(key);
    expect(loaded?.responseJson).toBe(stored("kept").responseJson);
    expect(loaded?.conversation[0]?.text).toBe("kept");
    const other = { ...key, accountId: randomUUID() };
    expect(await responses.load(other)).toBeUndefined();
    expect(await responses.remove(other)).toBe(false);
    expect(await responses.remove(key)).toBe(true);
    expect(await responses.load(key)).toBeUndefined();
    expect(await responses.remove(key)).toBe(false);
  });

  it("answers none, without touching Postgres, for keys that cannot name a row", async () => {
    const accountId = randomUUID();
    for (const key of [
      { accountId: "not-a-uuid", responseId: "resp_1" },
      { accountId, responseId: "resp_\0" },
      { accountId, responseId: "r".repeat(300_000) },
      { accountId, responseId: "" },
    ]) {
      expect(await responses.load(key)).toBeUndefined();
      expect(await responses.remove(key)).toBe(false);
      expect(await responses.store(key, stored("x"))).toBe(false);
    }
  });

  it("hides expired responses and the purge deletes them, leaving live ones", async () => {
    const accountId = randomUUID();
    const live = { accountId, responseId: `resp_${randomUUID()}` };
    const expired = { accountId, responseId: `resp_${randomUUID()}` };
    await responses.store(live, stored("live"));
    await new StoredResponses(migrated.prisma, 1).store(expired, stored("expired"));
    await migrated.prisma.storedResponse.update({
      where: { accountId_responseId: expired },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    expect(await responses.load(expired)).toBeUndefined();
    expect(await deleteExpiredResponses(migrated.prisma, { batchRows: 1 })).toBeGreaterThanOrEqual(1);
    expect(await migrated.prisma.storedResponse.count({ where: expired })).toBe(0);
    expect((await responses.load(live))?.conversation[0]?.text).toBe("live");
  });
});
