import { setTimeout as sleep } from "node:timers/promises";
import type { PaymentCredentials } from "./credentials.js";
import { newNotificationId, type OutgoingNotification, paymentNotification } from "./notifications.js";
import type { PaymentOrder } from "./orders.js";
import type { PaymentsState } from "./payments-state.js";

export const notificationFaults = [
  "duplicate",
  "forged",
  "wrong_amount",
  "other_merchant",
  "late",
  "replayed",
] as const;
export type NotificationFault = (typeof notificationFaults)[number];

/** Faults that stand for an attacker, not a payment: the order stays unpaid, so a query tells the truth. */
export const attackFaults: ReadonlySet<NotificationFault> = new Set(["forged", "wrong_amount", "other_merchant"]);

export interface FaultOptions {
  /** How many copies a duplicate sends at once. */
  count: number;
  /** How long a late notification waits, or a replay after the original. */
  delayMs: number;
}

// A few quick retries rather than the providers' day-long schedules: enough for a development stack.
const genuineAttempts = 3;
const retryDelayMs = 1_000;
const attemptTimeoutMs = 10_000;
// A replayed capture is this old: past WeChat Pay's five-minute window.
const replayAgeMs = 10 * 60_000;

/** One POST to the merchant; true when it acknowledged (WeChat Pay: any 2xx; Alipay: exactly `success`). */
async function post(
  notification: OutgoingNotification,
  payments: PaymentsState,
  fault: NotificationFault | undefined,
  attempt: number,
): Promise<boolean> {
  const record = {
    provider: notification.provider,
    out_trade_no: notification.outTradeNo,
    fault: fault ?? null,
    attempt,
    at: new Date().toISOString(),
  };
  try {
    const response = await fetch(notification.url, {
      method: "POST",
      headers: notification.headers,
      body: notification.body,
      signal: AbortSignal.any([payments.signal, AbortSignal.timeout(attemptTimeoutMs)]),
    });
    const answer = await response.text();
    const accepted = notification.provider === "wechat_pay" ? response.ok : answer.trim() === "success";
    payments.record({ ...record, status: response.status, answer: answer.slice(0, 200), accepted });
    return accepted;
  } catch (error) {
    payments.record({
      ...record,
      status: null,
      answer: error instanceof Error ? error.message : String(error),
      accepted: false,
    });
    return false;
  }
}

async function deliver(
  notification: OutgoingNotification,
  payments: PaymentsState,
  fault: NotificationFault | undefined,
  attempts: number,
): Promise<void> {
  for (let attempt = 1; attempt <= attempts && !payments.signal.aborted; attempt += 1) {
    if (await post(notification, payments, fault, attempt)) return;
    if (attempt < attempts) await sleep(retryDelayMs * attempt, undefined, { signal: payments.signal }).catch(() => {});
  }
}

/**
 * Notifies the merchant of a payment on the pay page, the fault (if any) shaping what is sent.
 * Runs in the background; it ends early when the simulator closes.
 */
export async function notifyMerchant(
  order: PaymentOrder,
  credentials: PaymentCredentials,
  payments: PaymentsState,
  fault: NotificationFault | undefined,
  options: FaultOptions,
): Promise<void> {
  const id = newNotificationId();
  const genuine = () => paymentNotification(order, credentials, { id });
  // The attacks claim a payment the provider never took: the order is shown paid in what they send only.
  const claimed: PaymentOrder = { ...order, state: "paid", paidAt: new Date() };
  const pause = () => sleep(options.delayMs, undefined, { signal: payments.signal });
  switch (fault) {
    case undefined:
      return deliver(genuine(), payments, fault, genuineAttempts);
    case "duplicate":
      await Promise.all(Array.from({ length: options.count }, () => deliver(genuine(), payments, fault, 1)));
      return;
    case "forged":
      return deliver(paymentNotification(claimed, credentials, { id, forged: true }), payments, fault, 1);
    case "wrong_amount":
      return deliver(
        paymentNotification(claimed, credentials, { id, amountFen: order.amountFen + 100 }),
        payments,
        fault,
        1,
      );
    case "other_merchant":
      return deliver(paymentNotification(claimed, credentials, { id, otherMerchant: true }), payments, fault, 1);
    case "late":
      await pause();
      return deliver(genuine(), payments, fault, genuineAttempts);
    case "replayed": {
      const original = genuine();
      await deliver(original, payments, undefined, genuineAttempts);
      await pause();
      // Alipay signs no time: a replay is the same form again. WeChat Pay's is a capture signed long ago.
      const replay =
        order.provider === "alipay"
          ? original
          : paymentNotification(order, credentials, { id, signedAt: new Date(Date.now() - replayAgeMs) });
      return deliver(replay, payments, fault, 1);
    }
  }
}
