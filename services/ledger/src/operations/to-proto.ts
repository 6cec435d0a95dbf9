import type { CodeBatch, Overview, PrepaidCode as PrepaidCodeMessage } from "@gateway/proto/ledger/v1/operations";
import { codeState, type ListedCode, type TalliedBatch } from "../prepaid-codes/list-codes.js";
import type { readOverview } from "./read-overview.js";

// Operations rows as the console's messages: money in micro-yuan, times in Unix ms (0 = none).

const ms = (date: Date | null) => date?.getTime() ?? 0;

export const batchMessage = (batch: TalliedBatch): CodeBatch => ({
  batchId: batch.id,
  amountMicros: Number(batch.amountMicros),
  count: batch.codeCount,
  expiresAtMs: ms(batch.expiresAt),
  note: batch.note,
  createdBy: batch.createdBy,
  createdAtMs: ms(batch.createdAt),
  redeemed: batch.redeemed,
  revoked: batch.revoked,
});

export const codeMessage = (code: ListedCode, batch: TalliedBatch): PrepaidCodeMessage => ({
  codeId: code.id,
  batchId: code.batchId,
  codePrefix: code.codePrefix,
  state: codeState(code, batch),
  redeemedAtMs: ms(code.redeemedAt),
  redeemedBy: code.redeemedBy ?? "",
  revokedAtMs: ms(code.revokedAt),
  outTradeNo: code.order?.outTradeNo ?? "",
});

export const overviewMessage = (overview: Awaited<ReturnType<typeof readOverview>>): Overview => ({
  fromDay: overview.from,
  toDay: overview.to,
  days: overview.days.map((day) => ({
    day: day.day,
    topUpMicros: Number(day.topUpMicros),
    topUps: Number(day.topUps),
    spendMicros: Number(day.spendMicros),
    requests: Number(day.requests),
  })),
  topAccounts: overview.accounts.map((account) => ({
    accountId: account.account_id,
    name: account.name ?? "",
    spendMicros: Number(account.micros),
    requests: Number(account.requests),
  })),
  topModels: overview.models.map((model) => ({
    model: model.model,
    spendMicros: Number(model.micros),
    requests: Number(model.requests),
  })),
  channels: overview.channels.map((channel) => ({
    channel: channel.channel,
    requests: Number(channel.requests),
    errors: Number(channel.errors),
  })),
});
