import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/database.js";
import { type MigratedDatabase, openMigratedDatabase } from "./migrated-database.js";

// The SQL migrations are written by hand (prisma migrate cannot run offline), so this proves
// they build the database the generated client expects: every model, every field.
describe("migrated schema matches the Prisma client", () => {
  let migrated: MigratedDatabase;
  let prisma: Database;

  beforeAll(async () => {
    migrated = await openMigratedDatabase();
    prisma = migrated.prisma;
  });
  afterAll(() => migrated?.close());

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
      data: { name: "model check", balanceMicros: 9_007_199_254_740_993n, logCapture: "metadata" },
    });
    expect(account.balanceMicros).toBe(9_007_199_254_740_993n);
    expect(account.logCapture).toBe("metadata");
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
        spendCapMicros: 9_007_199_254_740_995n,
        spentMicros: 9_007_199_254_740_997n,
        canReadLogs: true,
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

    const log = await prisma.requestLog.create({
      data: {
        requestId: usage.requestId,
        accountId: account.id,
        capture: "full",
        requestBody: '{"messages":[]}',
        responseBody: '{"content":"hi"}',
        truncated: true,
        errorMessage: "upstream said no",
        createdAt: moment,
      },
    });
    expect(await prisma.requestLog.findUniqueOrThrow({ where: { requestId: usage.requestId } })).toEqual(log);
    const day = new Date("2030-01-02T00:00:00.000Z");
    const daily = await prisma.dailyUsage.create({
      data: {
        accountId: account.id,
        day,
        model: "m",
        requests: 9_007_199_254_740_993n,
        promptTokens: 1n,
        completionTokens: 2n,
        costMicros: 3n,
      },
    });
    expect(daily.day).toEqual(day);
    const dailyKey = { accountId_day_model: { accountId: account.id, day, model: "m" } };
    expect(await prisma.dailyUsage.findUniqueOrThrow({ where: dailyKey })).toEqual(daily);
    const stored = await prisma.storedResponse.create({
      data: {
        accountId: account.id,
        responseId: "resp_schema",
        body: new Uint8Array([1, 2, 3]),
        storedBytes: 3,
        createdAt: moment,
        expiresAt: moment,
      },
    });
    const storedKey = { accountId_responseId: { accountId: account.id, responseId: "resp_schema" } };
    expect(await prisma.storedResponse.findUniqueOrThrow({ where: storedKey })).toEqual(stored);

    const order = await prisma.topUpOrder.create({
      data: {
        outTradeNo: "tu_schema-check",
        accountId: account.id,
        provider: "alipay",
        merchantId: "2021000000000001",
        amountMicros: 9_007_199_254_740_000n,
        createdAt: moment,
        expiresAt: new Date(moment.getTime() + 60_000),
      },
    });
    expect(order).toMatchObject({ currency: "CNY", state: "created", finishedAt: null, providerTradeId: null });
    const paid = await prisma.topUpOrder.update({
      where: { id: order.id },
      data: { state: "paid", finishedAt: moment, providerTradeId: "2030010222001", creditId: credit.id },
    });
    const notification = await prisma.paymentNotification.create({
      data: {
        provider: "alipay",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "trade_status=TRADE_SUCCESS",
        signatureVerified: true,
        facts: { amount_fen: "100" },
        orderId: order.id,
        outcome: "credited",
        reason: "r",
        receivedAt: moment,
      },
    });
    const adjustment = await prisma.creditAdjustment.create({
      data: {
        creditId: credit.id,
        accountId: account.id,
        amountMicros: -5n,
        reason: "why",
        actor: "who",
        createdAt: moment,
      },
    });
    const identity = await prisma.signInIdentity.create({
      data: {
        provider: "github",
        subject: "1",
        accountId: account.id,
        email: "a@b.c",
        displayName: "A",
        createdAt: moment,
        lastSignInAt: new Date("2030-02-03T04:05:06.789Z"),
      },
    });
    const readMoney = await prisma.credit.findUniqueOrThrow({
      where: { id: credit.id },
      include: { topUpOrder: { include: { notifications: true } }, adjustment: true },
    });
    expect(readMoney.topUpOrder).toEqual({ ...paid, notifications: [notification] });
    expect(readMoney.adjustment).toEqual(adjustment);
    expect(
      await prisma.signInIdentity.findUniqueOrThrow({
        where: { provider_subject: { provider: "github", subject: "1" } },
      }),
    ).toEqual(identity);
  });

  it("creates and reads operators' roles, audit entries and an account's operator fields", async () => {
    const moment = new Date("2030-01-02T03:04:05.678Z");
    const account = await prisma.account.create({
      data: { name: "operated", disabledAt: moment, defaultGroup: "premium" },
      include: { group: true },
    });
    expect(account).toMatchObject({ disabledAt: moment, defaultGroup: "premium", group: { name: "premium" } });
    const grant = await prisma.adminRole.create({
      data: { grantee: "github:schema", role: "support", grantedBy: "cli", grantedAt: moment },
    });
    expect(await prisma.adminRole.findUniqueOrThrow({ where: { grantee: "github:schema" } })).toEqual(grant);
    const entry = await prisma.auditEntry.create({
      data: {
        at: moment,
        actorAccountId: account.id,
        actor: "github:schema",
        actorRole: "support",
        action: "account.disable",
        accountId: account.id,
        target: "t",
        before: { disabledAt: null },
        after: { disabledAt: moment.toISOString() },
      },
    });
    expect(await prisma.auditEntry.findUniqueOrThrow({ where: { id: entry.id } })).toEqual(entry);
    const defaults = await prisma.auditEntry.create({
      data: { actor: "cli", actorRole: "admin", action: "role.grant" },
    });
    expect(defaults).toMatchObject({ actorAccountId: null, accountId: null, target: null, before: null, after: null });
    expect(defaults.at).toBeInstanceOf(Date);
    await expect(
      prisma.adminRole.create({ data: { grantee: "github:owner", role: "owner", grantedBy: "cli" } }),
    ).rejects.toThrow();
  });

  it("defaults the columns usage recording relies on", async () => {
    const account = await prisma.account.create({ data: { name: "defaults check" } });
    expect(account.logCapture).toBeNull();
    const key = await prisma.apiKey.create({
      data: { accountId: account.id, name: "k", modelGroup: "default", keyHash: "b".repeat(64), keyPrefix: "sk-gw-b" },
    });
    expect(key).toMatchObject({ spendCapMicros: null, spentMicros: 0n, canReadLogs: false });
    const log = await prisma.requestLog.create({
      data: { requestId: randomUUID(), accountId: account.id, capture: "metadata" },
    });
    expect(log).toMatchObject({ requestBody: null, responseBody: null, truncated: false, errorMessage: null });
    expect(log.createdAt).toBeInstanceOf(Date);
    const daily = await prisma.dailyUsage.create({ data: { accountId: account.id, day: new Date(0), model: "m" } });
    expect(daily).toMatchObject({ requests: 0n, promptTokens: 0n, completionTokens: 0n, costMicros: 0n });
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

  it("creates and reads prepaid code batches and codes with every field, and keeps a used code used", async () => {
    const account = await prisma.account.create({ data: { name: "code check" } });
    const moment = new Date("2031-02-03T04:05:06.789Z");
    const batch = await prisma.prepaidCodeBatch.create({
      data: { amountMicros: 1_230_000n, codeCount: 2, expiresAt: moment, note: "n", createdBy: "schema test" },
    });
    expect(batch).toMatchObject({ amountMicros: 1_230_000n, codeCount: 2, expiresAt: moment, note: "n" });
    const order = await prisma.topUpOrder.create({
      data: {
        outTradeNo: `tu${randomUUID().replaceAll("-", "").slice(0, 28)}`,
        accountId: account.id,
        provider: "prepaid_code",
        merchantId: batch.id,
        amountMicros: 1_230_000n,
        expiresAt: moment,
      },
    });
    const code = await prisma.prepaidCode.create({
      data: {
        batchId: batch.id,
        codeHash: "c".repeat(64),
        codePrefix: "GW-ABCDE",
        redeemedAt: moment,
        redeemedBy: account.id,
        orderId: order.id,
      },
    });
    const read = await prisma.prepaidCode.findUniqueOrThrow({
      where: { id: code.id },
      include: { batch: true, order: true, account: true },
    });
    expect(read).toMatchObject({ codePrefix: "GW-ABCDE", redeemedAt: moment, revokedAt: null });
    expect([read.batch.id, read.order?.id, read.account?.id]).toEqual([batch.id, order.id, account.id]);
    await expect(prisma.prepaidCode.update({ where: { id: code.id }, data: { revokedAt: moment } })).rejects.toThrow();
    await expect(
      prisma.prepaidCode.update({ where: { id: code.id }, data: { redeemedAt: null, redeemedBy: null } }),
    ).rejects.toThrow(/already used or revoked/);
    // refuse_delete's restrict_violation, which Prisma reports as a foreign key error.
    await expect(prisma.prepaidCode.delete({ where: { id: code.id } })).rejects.toThrow();
    expect(await prisma.prepaidCode.count({ where: { id: code.id } })).toBe(1);
  });
});
