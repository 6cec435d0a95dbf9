import type { KeyObject } from "node:crypto";
import {
  authorizationScheme,
  newNonce,
  parseAuthorization,
  requestMessage,
  responseMessage,
  signSha256WithRsa,
  timestampToleranceSeconds,
  verifySha256WithRsa,
} from "@gateway/payments/protocol";
import { z } from "zod";
import { type Exchange, type Handler, type SimulatorState, writeHead } from "../http.js";
import type { PaymentCredentials } from "./credentials.js";
import type { PaymentOrder } from "./orders.js";
import { payPageUrl } from "./pay-page-url.js";

/** The Wechatpay-* headers of a body signed with a platform key (another key forges them). */
export function wechatPaySignedHeaders(
  body: string,
  key: KeyObject,
  serial: string,
  timestamp = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const nonce = newNonce();
  return {
    "wechatpay-timestamp": String(timestamp),
    "wechatpay-nonce": nonce,
    "wechatpay-signature": signSha256WithRsa(key, responseMessage(String(timestamp), nonce, body)),
    "wechatpay-serial": serial,
    "wechatpay-signature-type": authorizationScheme,
  };
}

function send(exchange: Exchange, credentials: PaymentCredentials, status: number, answer?: unknown): void {
  if (exchange.closed || exchange.response.headersSent) return;
  const body = answer === undefined ? "" : JSON.stringify(answer);
  const { platform, platformSerial } = credentials.wechat;
  writeHead(exchange, status, {
    ...(body && { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
    "request-id": exchange.id,
    ...wechatPaySignedHeaders(body, platform.privateKey, platformSerial),
  });
  exchange.response.end(body);
}

const fail = (exchange: Exchange, credentials: PaymentCredentials, status: number, code: string, message: string) =>
  send(exchange, credentials, status, { code, message });

/** Checks the merchant's WECHATPAY2-SHA256-RSA2048 Authorization the way WeChat Pay does; the problem, if any. */
function authorizationProblem(exchange: Exchange, credentials: PaymentCredentials): string | undefined {
  const authorization = parseAuthorization(exchange.request.headers.authorization);
  if (!authorization) return "Authorization header is missing or malformed";
  const { mchid, merchant, merchantSerial } = credentials.wechat;
  if (authorization.mchid !== mchid) return "unknown mchid";
  if (authorization.serial_no !== merchantSerial) return "the certificate serial_no is not this merchant's";
  if (Math.abs(Date.now() / 1000 - Number(authorization.timestamp)) > timestampToleranceSeconds) {
    return "timestamp is outside the allowed window";
  }
  const message = requestMessage(
    exchange.method,
    exchange.request.url ?? "/",
    authorization.timestamp,
    authorization.nonce_str,
    exchange.bodyText,
  );
  return verifySha256WithRsa(merchant.publicKey, message, authorization.signature)
    ? undefined
    : "signature does not verify";
}

type ApiHandler = (exchange: Exchange, state: SimulatorState, credentials: PaymentCredentials) => void;

/** Wraps an API handler with WeChat Pay's request authentication. */
function authenticated(handler: ApiHandler) {
  return async (exchange: Exchange, state: SimulatorState): Promise<void> => {
    const credentials = await state.payments.credentials;
    const problem = authorizationProblem(exchange, credentials);
    if (problem) return fail(exchange, credentials, 401, "SIGN_ERROR", problem);
    handler(exchange, state, credentials);
  };
}

const nativeOrder = z.object({
  appid: z.string(),
  mchid: z.string(),
  description: z.string().min(1).max(127),
  out_trade_no: z.string().regex(/^[A-Za-z0-9_\-|*]{6,32}$/),
  notify_url: z.url(),
  time_expire: z.iso.datetime({ offset: true }).optional(),
  attach: z.string().max(128).optional(),
  amount: z.object({ total: z.number().int().min(1), currency: z.literal("CNY").default("CNY") }),
});

function tradeState(order: PaymentOrder): string {
  return { unpaid: "NOTPAY", paid: "SUCCESS", closed: "CLOSED" }[order.state];
}

/** The transaction object of queries and notifications. */
export function wechatPayTransaction(
  order: PaymentOrder,
  identity: { mchid: string; appid: string },
  amountFen = order.amountFen,
): Record<string, unknown> {
  const paid = order.state === "paid";
  return {
    appid: identity.appid,
    mchid: identity.mchid,
    out_trade_no: order.outTradeNo,
    ...(paid && { transaction_id: order.providerTradeNo, bank_type: "OTHERS" }),
    trade_type: "NATIVE",
    trade_state: tradeState(order),
    trade_state_desc: { unpaid: "订单未支付", paid: "支付成功", closed: "订单已关闭" }[order.state],
    attach: "",
    ...(paid && {
      success_time: `${(order.paidAt ?? new Date()).toISOString().slice(0, 19)}+00:00`,
      payer: { openid: "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o" },
    }),
    amount: { total: amountFen, ...(paid && { payer_total: amountFen }), currency: "CNY", payer_currency: "CNY" },
  };
}

/** `POST /v3/pay/transactions/native`. */
export const createNativeOrder = authenticated((exchange, state, credentials) => {
  const parsed = nativeOrder.safeParse(exchange.body);
  if (!parsed.success) return fail(exchange, credentials, 400, "PARAM_ERROR", parsed.error.issues[0]?.message ?? "");
  const request = parsed.data;
  if (request.mchid !== credentials.wechat.mchid || request.appid !== credentials.wechat.appid) {
    return fail(exchange, credentials, 400, "PARAM_ERROR", "appid和mch_id不匹配");
  }
  const existing = state.payments.orders.find("wechat_pay", request.out_trade_no);
  if (existing) {
    if (existing.state === "paid") return fail(exchange, credentials, 400, "ORDERPAID", "该订单已支付");
    if (existing.state === "closed") return fail(exchange, credentials, 400, "ORDER_CLOSED", "订单已关闭");
    if (existing.amountFen !== request.amount.total || existing.description !== request.description) {
      return fail(exchange, credentials, 400, "INVALID_REQUEST", "201 商户订单号重复");
    }
    return send(exchange, credentials, 200, { code_url: payPageUrl(exchange, existing) });
  }
  const order = state.payments.orders.create({
    provider: "wechat_pay",
    outTradeNo: request.out_trade_no,
    amountFen: request.amount.total,
    description: request.description,
    notifyUrl: request.notify_url,
    returnUrl: undefined,
    expiresAt: request.time_expire === undefined ? undefined : new Date(request.time_expire),
  });
  send(exchange, credentials, 200, { code_url: payPageUrl(exchange, order) });
});

const orderPath = /^\/v3\/pay\/transactions\/out-trade-no\/([^/]+)(\/close)?$/;

function orderOf(exchange: Exchange, state: SimulatorState): PaymentOrder | undefined {
  try {
    return state.payments.orders.find("wechat_pay", decodeURIComponent(orderPath.exec(exchange.path)?.[1] ?? ""));
  } catch {
    // A malformed escape names no order.
    return undefined;
  }
}

/** `GET /v3/pay/transactions/out-trade-no/{out_trade_no}?mchid=`. */
export const queryOrder = authenticated((exchange, state, credentials) => {
  const mchid = new URL(exchange.request.url ?? "/", "http://simulator").searchParams.get("mchid");
  if (mchid !== credentials.wechat.mchid)
    return fail(exchange, credentials, 400, "PARAM_ERROR", "mchid is missing or wrong");
  const order = orderOf(exchange, state);
  if (!order) return fail(exchange, credentials, 404, "ORDER_NOT_EXIST", "订单不存在");
  send(exchange, credentials, 200, wechatPayTransaction(order, credentials.wechat));
});

/** `POST /v3/pay/transactions/out-trade-no/{out_trade_no}/close`: 204 without a body. */
export const closeOrder = authenticated((exchange, state, credentials) => {
  const parsed = z.object({ mchid: z.literal(credentials.wechat.mchid) }).safeParse(exchange.body);
  if (!parsed.success) return fail(exchange, credentials, 400, "PARAM_ERROR", "mchid is missing or wrong");
  const order = orderOf(exchange, state);
  if (!order) return fail(exchange, credentials, 404, "ORDER_NOT_EXIST", "订单不存在");
  if (order.state === "paid") return fail(exchange, credentials, 400, "ORDERPAID", "该订单已支付");
  order.state = "closed";
  send(exchange, credentials, 204);
});

export const wechatPayRoutes: [method: string, path: RegExp, handler: Handler][] = [
  ["GET", /^\/v3\/pay\/transactions\/out-trade-no\/[^/]+$/, queryOrder],
  ["POST", /^\/v3\/pay\/transactions\/out-trade-no\/[^/]+\/close$/, closeOrder],
];
