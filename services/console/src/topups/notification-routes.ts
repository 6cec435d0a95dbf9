import {
  type AlipayConfig,
  alipayNotificationAnswer,
  verifyAlipayNotification,
  verifyWechatPayNotification,
  type WechatPayConfig,
  wechatPayNotificationAnswer,
} from "@gateway/payments";
import { NotificationOutcome, type RecordPaymentNotificationRequest } from "@gateway/proto/ledger/v1/console";
import type { Logger } from "@gateway/shared";
import express, { type Request, type Router } from "express";
import type { Ledger } from "../ledger-client.js";
import { type PaymentMethod, paymentFacts } from "./payment-methods.js";

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

/** `POST /payments/{wechat,alipay}/notify`: verified here, stored and applied by ledger, answered in each provider's terms. */
export function notificationRoutes(router: Router, { ledger, wechat, alipay, logger }: NotificationDependencies): void {
  const record = async (request: RecordPaymentNotificationRequest): Promise<boolean> => {
    try {
      const answer = await ledger.recordPaymentNotification(request);
      logger.info(
        { outTradeNo: request.facts?.outTradeNo, outcome: NotificationOutcome[answer.outcome], reason: answer.reason },
        "payment notification",
      );
      return request.signatureVerified && storedForGood.has(answer.outcome);
    } catch (error) {
      logger.error({ err: error }, "a payment notification could not be recorded; the provider will retry");
      return false;
    }
  };
  const bodyOf = (request: Request) => (typeof request.body === "string" ? request.body : "");

  if (wechat) {
    router.post("/payments/wechat/notify", rawText, async (request, response) => {
      const body = bodyOf(request);
      const verified = verifyWechatPayNotification({ headers: request.headers, body }, wechat.config);
      const handled = await record({
        provider: wechat.method.provider,
        headers: auditHeaders(request),
        body,
        signatureVerified: verified.ok,
        facts: verified.ok ? paymentFacts(verified.payment, wechat.method) : undefined,
      });
      if (!verified.ok) logger.warn({ reason: verified.reason }, "a WeChat Pay notification failed verification");
      const answer = wechatPayNotificationAnswer(handled, verified.ok ? 500 : 401);
      response.status(answer.status).set(answer.headers).send(answer.body);
    });
  }
  if (alipay) {
    router.post("/payments/alipay/notify", rawText, async (request, response) => {
      const body = bodyOf(request);
      const verified = verifyAlipayNotification(body, alipay.config);
      const handled = await record({
        provider: alipay.method.provider,
        headers: auditHeaders(request),
        body,
        signatureVerified: verified.ok,
        facts: verified.ok ? paymentFacts(verified.payment, alipay.method) : undefined,
      });
      if (!verified.ok) logger.warn({ reason: verified.reason }, "an Alipay notification failed verification");
      response.status(200).type("text/plain").send(alipayNotificationAnswer(handled));
    });
  }
}
