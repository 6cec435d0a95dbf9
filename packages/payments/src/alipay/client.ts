import { z } from "zod";
import { fenToYuan, yuanToFen } from "../amount.js";
import { providerTime } from "../china-time.js";
import { parseJson } from "../json.js";
import type { ProviderPayment } from "../payment.js";
import { verifySha256WithRsa } from "../rsa-sha256.js";
import type { AlipayConfig } from "./config.js";
import { alipayTimestamp, signParameters } from "./sign-content.js";

export type AlipayCallFailure =
  | { ok: false; reason: "network_error"; message: string }
  /** Alipay refused the call: code (40004…) and sub_code (ACQ.TRADE_NOT_EXIST…). */
  | { ok: false; reason: "provider_error"; code: string; subCode: string | undefined; message: string }
  | { ok: false; reason: "invalid_signature" }
  | { ok: false; reason: "malformed_response" };

export interface AlipayOrder {
  outTradeNo: string;
  subject: string;
  amountFen: number;
  notifyUrl: string;
  /** Where the buyer's browser returns after page pay. */
  returnUrl?: string;
  /** When the order stops taking payment. */
  expiresAt?: Date;
}

const success = "10000";

const businessAnswer = z.looseObject({
  code: z.string(),
  msg: z.string().default(""),
  sub_code: z.string().optional(),
  sub_msg: z.string().optional(),
});
const precreateAnswer = z.object({ out_trade_no: z.string(), qr_code: z.string().min(1) });
const queryAnswer = z.object({
  out_trade_no: z.string(),
  trade_no: z.string(),
  trade_status: z.string(),
  total_amount: z.string(),
  seller_id: z.string().optional(),
  send_pay_date: z.string().optional(),
});

/**
 * The signed text of an answer: the raw JSON of its `<method>_response` member, exactly as sent,
 * which a parse and re-serialisation would not reproduce.
 */
function signedNode(raw: string, member: string): string | undefined {
  const start = raw.indexOf(`"${member}":`);
  const signAt = raw.lastIndexOf('"sign":');
  if (start < 0 || signAt < start) return undefined;
  const node = raw.slice(start + member.length + 3, signAt);
  const end = node.lastIndexOf("}");
  return end < 0 ? undefined : node.slice(0, end + 1).trim();
}

/** Alipay open-platform calls (RSA2): QR precreate, page-pay links, query and close. */
export class AlipayClient {
  constructor(
    private readonly config: AlipayConfig,
    private readonly timeoutMs = 10_000,
  ) {}

  /** `alipay.trade.precreate`: the qr_code to show. */
  async precreate(order: AlipayOrder): Promise<{ ok: true; qrCode: string } | AlipayCallFailure> {
    const answer = await this.call("alipay.trade.precreate", this.orderContent(order), order.notifyUrl);
    if (!answer.ok) return answer;
    const parsed = precreateAnswer.safeParse(answer.node);
    return parsed.success ? { ok: true, qrCode: parsed.data.qr_code } : { ok: false, reason: "malformed_response" };
  }

  /** `alipay.trade.page.pay`: a signed gateway URL the buyer's browser opens to pay. */
  pagePayUrl(order: AlipayOrder): string {
    const parameters = this.signedRequest(
      "alipay.trade.page.pay",
      { ...this.orderContent(order), product_code: "FAST_INSTANT_TRADE_PAY" },
      order.notifyUrl,
      order.returnUrl,
    );
    return `${this.config.gatewayUrl}?${new URLSearchParams(parameters)}`;
  }

  /** `alipay.trade.query`: the trade's state, for reconciling lost notifications. */
  async query(outTradeNo: string): Promise<{ ok: true; payment: ProviderPayment } | AlipayCallFailure> {
    const answer = await this.call("alipay.trade.query", { out_trade_no: outTradeNo });
    if (!answer.ok) return answer;
    const parsed = queryAnswer.safeParse(answer.node);
    if (!parsed.success) return { ok: false, reason: "malformed_response" };
    const amount = yuanToFen(parsed.data.total_amount);
    if (!amount.ok) return { ok: false, reason: "malformed_response" };
    const status = parsed.data.trade_status;
    return {
      ok: true,
      payment: {
        provider: "alipay",
        outTradeNo: parsed.data.out_trade_no,
        providerTradeNo: parsed.data.trade_no,
        state: status,
        paid: status === "TRADE_SUCCESS" || status === "TRADE_FINISHED",
        amountFen: amount.fen,
        currency: "CNY",
        appId: this.config.appId,
        merchantId: parsed.data.seller_id,
        paidAt: providerTime(parsed.data.send_pay_date),
      },
    };
  }

  /** `alipay.trade.close`: no payment is taken after it answers. */
  async close(outTradeNo: string): Promise<{ ok: true } | AlipayCallFailure> {
    const answer = await this.call("alipay.trade.close", { out_trade_no: outTradeNo });
    return answer.ok ? { ok: true } : answer;
  }

  private orderContent(order: AlipayOrder): Record<string, string> {
    return {
      out_trade_no: order.outTradeNo,
      total_amount: fenToYuan(order.amountFen),
      subject: order.subject,
      ...(order.expiresAt && { time_expire: alipayTimestamp(order.expiresAt) }),
    };
  }

  private signedRequest(
    method: string,
    content: Record<string, string>,
    notifyUrl?: string,
    returnUrl?: string,
  ): Record<string, string> {
    const parameters: Record<string, string> = {
      app_id: this.config.appId,
      method,
      format: "JSON",
      charset: "utf-8",
      sign_type: "RSA2",
      timestamp: alipayTimestamp(new Date()),
      version: "1.0",
      biz_content: JSON.stringify(content),
      ...(notifyUrl && { notify_url: notifyUrl }),
      ...(returnUrl && { return_url: returnUrl }),
    };
    return signParameters(parameters, this.config.privateKey);
  }

  private async call(
    method: string,
    content: Record<string, string>,
    notifyUrl?: string,
  ): Promise<{ ok: true; node: Record<string, unknown> } | AlipayCallFailure> {
    let raw: string;
    try {
      const response = await fetch(this.config.gatewayUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded;charset=utf-8" },
        body: new URLSearchParams(this.signedRequest(method, content, notifyUrl)),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      raw = await response.text();
    } catch (error) {
      return { ok: false, reason: "network_error", message: error instanceof Error ? error.message : String(error) };
    }
    const member = raw.includes('"error_response"') ? "error_response" : `${method.replaceAll(".", "_")}_response`;
    const envelope = z.object({ sign: z.string().optional() }).safeParse(parseJson(raw));
    const node = signedNode(raw, member);
    if (!envelope.success || node === undefined) return { ok: false, reason: "malformed_response" };
    // Alipay leaves some gateway-level errors unsigned; they say no more than that the call failed.
    const signature = envelope.data.sign;
    if (signature !== undefined && !verifySha256WithRsa(this.config.alipayPublicKey, node, signature)) {
      return { ok: false, reason: "invalid_signature" };
    }
    const business = businessAnswer.safeParse(parseJson(node));
    if (!business.success) return { ok: false, reason: "malformed_response" };
    if (business.data.code !== success) {
      return {
        ok: false,
        reason: "provider_error",
        code: business.data.code,
        subCode: business.data.sub_code,
        message: business.data.sub_msg ?? business.data.msg,
      };
    }
    if (signature === undefined) return { ok: false, reason: "invalid_signature" };
    return { ok: true, node: business.data };
  }
}
