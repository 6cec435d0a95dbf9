import { z } from "zod";
import { chinaWallClock } from "../china-time.js";
import { parseJson } from "../json.js";
import type { ProviderPayment } from "../payment.js";
import { signSha256WithRsa } from "../rsa-sha256.js";
import type { WechatPayConfig } from "./config.js";
import { formatAuthorization, newNonce, requestMessage } from "./messages.js";
import { type SignatureFailure, verifyWechatPaySignature } from "./signature.js";
import { paymentOfTransaction, wechatPayTransaction } from "./transaction.js";

export type WechatPayCallFailure =
  | { ok: false; reason: "network_error"; message: string }
  /** WeChat Pay refused the call: its HTTP status and error code (PARAM_ERROR, ORDER_NOT_EXIST, ORDERPAID…). */
  | { ok: false; reason: "provider_error"; status: number; code: string; message: string }
  | { ok: false; reason: SignatureFailure }
  | { ok: false; reason: "malformed_response"; status: number };

export interface NativeOrder {
  outTradeNo: string;
  description: string;
  amountFen: number;
  notifyUrl: string;
  /** When the order stops taking payment (WeChat Pay closes it itself). */
  expiresAt?: Date;
}

const errorBody = z.object({ code: z.string(), message: z.string().default("") });
const nativeOrderAnswer = z.object({ code_url: z.string().min(1) });

/** WeChat Pay API v3 calls for Native (QR) payment, each signed, each answer's signature checked. */
export class WechatPayClient {
  constructor(
    private readonly config: WechatPayConfig,
    private readonly timeoutMs = 10_000,
  ) {}

  /** `POST /v3/pay/transactions/native`: the code_url to show as a QR code. */
  async createNativeOrder(order: NativeOrder): Promise<{ ok: true; codeUrl: string } | WechatPayCallFailure> {
    const body = {
      appid: this.config.appid,
      mchid: this.config.mchid,
      description: order.description,
      out_trade_no: order.outTradeNo,
      notify_url: order.notifyUrl,
      amount: { total: order.amountFen, currency: "CNY" },
      ...(order.expiresAt && { time_expire: `${chinaWallClock(order.expiresAt)}+08:00` }),
    };
    const answer = await this.call("POST", "/v3/pay/transactions/native", JSON.stringify(body));
    if (!answer.ok) return answer;
    const parsed = nativeOrderAnswer.safeParse(parseJson(answer.body));
    if (!parsed.success) return { ok: false, reason: "malformed_response", status: answer.status };
    return { ok: true, codeUrl: parsed.data.code_url };
  }

  /** `GET /v3/pay/transactions/out-trade-no/{no}`: the order's state, for reconciling lost notifications. */
  async queryOrder(outTradeNo: string): Promise<{ ok: true; payment: ProviderPayment } | WechatPayCallFailure> {
    const path = `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}?mchid=${encodeURIComponent(this.config.mchid)}`;
    const answer = await this.call("GET", path, "");
    if (!answer.ok) return answer;
    const parsed = wechatPayTransaction.safeParse(parseJson(answer.body));
    if (!parsed.success) return { ok: false, reason: "malformed_response", status: answer.status };
    return { ok: true, payment: paymentOfTransaction(parsed.data) };
  }

  /** `POST /v3/pay/transactions/out-trade-no/{no}/close`: no payment is taken after it answers. */
  async closeOrder(outTradeNo: string): Promise<{ ok: true } | WechatPayCallFailure> {
    const path = `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}/close`;
    const answer = await this.call("POST", path, JSON.stringify({ mchid: this.config.mchid }));
    return answer.ok ? { ok: true } : answer;
  }

  private async call(
    method: "GET" | "POST",
    path: string,
    body: string,
  ): Promise<{ ok: true; status: number; body: string } | WechatPayCallFailure> {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const nonce = newNonce();
    const authorization = formatAuthorization({
      mchid: this.config.mchid,
      nonce_str: nonce,
      signature: signSha256WithRsa(this.config.privateKey, requestMessage(method, path, timestamp, nonce, body)),
      timestamp,
      serial_no: this.config.certSerial,
    });
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.config.baseUrl}${path}`, {
        method,
        headers: {
          authorization,
          accept: "application/json",
          ...(method === "POST" && { "content-type": "application/json" }),
        },
        ...(method === "POST" && { body }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      return { ok: false, reason: "network_error", message: error instanceof Error ? error.message : String(error) };
    }
    if (!response.ok) {
      // Error answers are not trusted for anything but their code, so their signature is not required.
      const error = errorBody.safeParse(parseJson(text));
      if (!error.success) return { ok: false, reason: "malformed_response", status: response.status };
      return { ok: false, reason: "provider_error", status: response.status, ...error.data };
    }
    const signature = verifyWechatPaySignature(response.headers, text, this.config);
    if (!signature.ok) return signature;
    return { ok: true, status: response.status, body: text };
  }
}
