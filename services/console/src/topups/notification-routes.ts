import {
  type AlipayConfig,
  alipayNotificationAnswer,
  type ProviderPayment,
  verifyAlipayNotification,
  verifyWechatPayNotification,
  type WechatPayConfig,
  wechatPayNotificationAnswer,
} from "@gateway/payments";
import type { Logger } from "@gateway/platform";
import { NotificationOutcome } from "@gateway/proto/ledger/v1/console";
import express, { type Request, type Router } from "express";
import type { Ledger } from "../ledger-client.js";
import { type PaymentMethod, paymentFacts } from "./payment-methods.js";

const bodyOf = (request: Request) => (typeof request.body === "string" ? request.body : "");

// Notifications are a few kilobytes; the raw text is kept byte for byte, since signatures cover it.
const rawText = express.text({ type: () => true, limit: "64kb" });

// Headers worth keeping for the audit: never cookies or credentials (a provider sends none anyway).
const keptHeaders = /^(content-type|user-agent|wechatpay-.+|request-id|x-forwarded-for)$/;
const auditHeaders = (request: Request) =>
  Object.fromEntries(
    Object.entries(request.headers)
      .filter(([name, value]) => keptHeaders.test(name) && typeof value === "string")
      .map(([name, value]) => [name, String(value).slice(0, 1024)]),
  );

// Stored (credited, a copy, pending, closed, or refused for good such as a wrong amount): the
// provider may stop. Only an unverified message or ledger being unreachable asks for a retry.
const storedForGood = new Set([
  NotificationOutcome.NOTIFICATION_OUTCOME_CREDITED,
  NotificationOutcome.NOTIFICATION_OUTCOME_DUPLICATE,
  NotificationOutcome.NOTIFICATION_OUTCOME_PENDING,
  NotificationOutcome.NOTIFICATION_OUTCOME_CLOSED,
  NotificationOutcome.NOTIFICATION_OUTCOME_REJECTED,
]);

export interface NotificationDependencies {
  ledger: Ledger;
  wechat?: { config: WechatPayConfig; method: PaymentMethod } | undefined;
  alipay?: { config: AlipayConfig; method: PaymentMethod } | undefined;
  logger: Logger;
}

/** `POST /payments/{wechat,alipay}/notify`: verified here, then stored and applied by ledger, answered in each provider's terms. */
export function notificationRoutes(router: Router, { ledger, wechat, alipay, logger }: NotificationDependencies): void {
  /**
   * Stores a verified notification in ledger; true when the provider may stop sending it. One
   * that fails verification is only logged (its reason, never its body): anyone can post here,
   * so storing what they post would let them fill the database.
   */
  const record = async (
    request: Request,
    method: PaymentMethod,
    verified: { ok: true; payment: ProviderPayment } | { ok: false; reason: string },
  ): Promise<boolean> => {
    if (!verified.ok) {
      logger.warn({ provider: method.name, reason: verified.reason }, "a notification failed verification");
      return false;
    }
    const facts = paymentFacts(verified.payment, method);
    try {
      const answer = await ledger.recordPaymentNotification({
        provider: method.provider,
        headers: auditHeaders(request),
        body: bodyOf(request),
        signatureVerified: true,
        facts,
      });
      const outcome = NotificationOutcome[answer.outcome];
      logger.info({ outTradeNo: facts.outTradeNo, outcome, reason: answer.reason }, "payment notification");
      return storedForGood.has(answer.outcome);
    } catch (error) {
      logger.error({ err: error }, "a payment notification could not be recorded; the provider will retry");
      return false;
    }
  };

  if (wechat) {
    router.post("/payments/wechat/notify", rawText, async (request, response) => {
      const verified = verifyWechatPayNotification({ headers: request.headers, body: bodyOf(request) }, wechat.config);
      const handled = await record(request, wechat.method, verified);
      const answer = wechatPayNotificationAnswer(handled, verified.ok ? 500 : 401);
      response.status(answer.status).set(answer.headers).send(answer.body);
    });
  }
  if (alipay) {
    router.post("/payments/alipay/notify", rawText, async (request, response) => {
      const handled = await record(request, alipay.method, verifyAlipayNotification(bodyOf(request), alipay.config));
      response.status(200).type("text/plain").send(alipayNotificationAnswer(handled));
    });
  }
}
