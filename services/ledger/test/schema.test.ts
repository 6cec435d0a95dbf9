import { randomUUID } from "node:crypto";
import { createTemporaryDatabase, type TemporaryDatabase } from "@gateway/stack";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectDatabase, type Database } from "../src/database.js";
import { migrate } from "../src/migrate.js";

// The SQL migrations are written by hand (prisma migrate cannot run offline), so this proves
// they build the database the generated client expects: every model, every field.
describe("migrated schema matches the Prisma client", () => {
  let database: TemporaryDatabase;
  let prisma: Database;

  beforeAll(async () => {
    database = await createTemporaryDatabase();
    await migrate(database.url);
    prisma = connectDatabase(database.url);
  });
  afterAll(async () => {
    await prisma?.$disconnect();
    await database?.drop();
  });

  it("seeds the model groups", async () => {
    const groups = await prisma.modelGroup.findMany({ orderBy: { name: "asc" } });
    expect(groups.map(({ name, multiplierBasisPoints }) => [name, multiplierBasisPoints])).toEqual([
      ["default", 10000],
      ["premium", 15000],
    ]);
  });

  it("creates and reads every model with every field", async () => {
    const group = await prisma.modelGroup.create({ data: { name: "test-group", description: "d" } });
    expect(group).toEqual({ name: "test-group", description: "d", multiplierBasisPoints: 10000 });

    const account = await prisma.account.create({
      data: { name: "model check", balanceMicros: 9_007_199_254_740_993n },
    });
    expect(account.balanceMicros).toBe(9_007_199_254_740_993n);
    expect(account.createdAt).toBeInstanceOf(Date);

    const moment = new Date("2030-01-02T03:04:05.678Z");
    const key = await prisma.apiKey.create({
      data: {
        accountId: account.id,
        name: "k",
        modelGroup: group.name,
        keyHash: "a".repeat(64),
        keyPrefix: "sk-gw-abcdef",
        expiresAt: moment,
        revokedAt: moment,
        lastUsedAt: moment,
      },
    });
    const usage = await prisma.usageRecord.create({
      data: {
        requestId: randomUUID(),
        accountId: account.id,
        keyId: key.id,
        model: "m",
        vendor: "v",
        channel: "c",
        endpoint: "/v1/chat/completions",
        promptTokens: 1,
        completionTokens: 2,
        totalTokens: 3,
        estimated: true,
        outcome: "ok",
        errorCode: "rate_limited",
        costMicros: 42n,
        latencyMs: 7,
        stream: false,
        startedAt: moment,
        traceId: "t",
      },
    });
    const credit = await prisma.credit.create({
      data: { accountId: account.id, amountMicros: 5n, idempotencyKey: randomUUID() },
    });

    const read = await prisma.account.findUniqueOrThrow({
      where: { id: account.id },
      include: { apiKeys: { include: { group: true } }, credits: true },
    });
    expect(read.apiKeys).toEqual([{ ...key, group }]);
    expect(read.apiKeys[0]!.expiresAt).toEqual(moment);
    expect(read.credits).toEqual([credit]);
    expect(await prisma.usageRecord.findUniqueOrThrow({ where: { requestId: usage.requestId } })).toEqual(usage);
  });

  it("enforces the unique keys the ledger relies on", async () => {
    const account = await prisma.account.create({ data: { name: "unique check" } });
    const record = {
      requestId: `dup-${randomUUID()}`,
      accountId: account.id,
      keyId: randomUUID(),
      model: "m",
      vendor: "v",
      channel: "c",
      endpoint: "e",
      promptTokens: 0,
      completionTokens: 0,
      totalTokens: 0,
      estimated: false,
      outcome: "ok",
      costMicros: 0n,
      latencyMs: 0,
      stream: false,
      startedAt: new Date(),
    };
    await prisma.usageRecord.create({ data: record });
    await expect(prisma.usageRecord.create({ data: record })).rejects.toMatchObject({ code: "P2002" });
    const credit = { accountId: account.id, amountMicros: 1n, idempotencyKey: `dup-${randomUUID()}` };
    await prisma.credit.create({ data: credit });
    await expect(prisma.credit.create({ data: credit })).rejects.toMatchObject({ code: "P2002" });
  });
});
