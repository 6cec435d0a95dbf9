import type { KeyObject } from "node:crypto";
import { fenToYuan, yuanToFen } from "@gateway/payments";
import { parseJson, signSha256WithRsa, verifyParameters } from "@gateway/payments/protocol";
import { z } from "zod";
import { type Exchange, type SimulatorState, writeHead } from "../http.js";
import type { PaymentCredentials } from "./credentials.js";
import type { PaymentOrder } from "./orders.js";
import { payPageUrl } from "./pay-page-url.js";

type Answer = Record<string, unknown>;

const success: Answer = { code: "10000", msg: "Success" };
const invalidArguments = (subCode: string, subMsg: string): Answer => ({
  code: "40002",
  msg: "Invalid Arguments",
  sub_code: subCode,
  sub_msg: subMsg,
});
const businessFailed = (subCode: string, subMsg: string): Answer => ({
  code: "40004",
  msg: "Business Failed",
  sub_code: subCode,
  sub_msg: subMsg,
});

/** `{"<member>":<node>,"sign":"…"}`, the signature over the node's text exactly as written. */
function send(exchange: Exchange, member: string, node: Answer, key: KeyObject): void {
  if (exchange.closed || exchange.response.headersSent) return;
  const nodeText = JSON.stringify(node);
  const body = `{"${member}":${nodeText},"sign":${JSON.stringify(signSha256WithRsa(key, nodeText))}}`;
  writeHead(exchange, 200, {
    "content-type": "application/json;charset=utf-8",
    "content-length": Buffer.byteLength(body),
  });
  exchange.response.end(body);
}

/** A request's parameters: the query and, for a form POST, the body (the SDKs split them either way). */
function parametersOf(exchange: Exchange): Record<string, string> {
  const parameters: Record<string, string> = {};
  const query = new URL(exchange.request.url ?? "/", "http://simulator").searchParams;
  const form = new URLSearchParams(exchange.method === "POST" ? exchange.bodyText : "");
  for (const [name, value] of [...query, ...form]) parameters[name] = value;
  return parameters;
}

const orderContent = z.object({
  out_trade_no: z.string().regex(/^[A-Za-z0-9_]{1,64}$/),
  total_amount: z.string(),
  subject: z.string().min(1).max(256),
  time_expire: z
    .string()
    .regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    .optional(),
});
const orderReference = z.object({ out_trade_no: z.string().min(1) });

// Alipay's times are China Standard Time without an offset.
const fromChinaTime = (text: string) => new Date(`${text.replace(" ", "T")}+08:00`);

type Outcome = { node: Answer } | { redirect: string };

function openOrder(
  state: SimulatorState,
  parameters: Record<string, string>,
): { order: PaymentOrder } | { node: Answer } {
  const content = orderContent.safeParse(parseJson(parameters.biz_content ?? ""));
  if (!content.success) return { node: invalidArguments("isv.invalid-parameter", "biz_content is missing or invalid") };
  const amount = yuanToFen(content.data.total_amount);
  if (!amount.ok || amount.fen < 1)
    return { node: invalidArguments("isv.invalid-parameter", "total_amount is invalid") };
  if (!parameters.notify_url) return { node: invalidArguments("isv.missing-notify-url", "notify_url is required") };
  const existing = state.payments.orders.find("alipay", content.data.out_trade_no);
  if (existing) {
    if (existing.state !== "unpaid" || existing.amountFen !== amount.fen) {
      return { node: businessFailed("ACQ.TRADE_HAS_SUCCESS", "交易已存在或已支付") };
    }
    return { order: existing };
  }
  const order = state.payments.orders.create({
    provider: "alipay",
    outTradeNo: content.data.out_trade_no,
    amountFen: amount.fen,
    description: content.data.subject,
    notifyUrl: parameters.notify_url,
    returnUrl: parameters.return_url || undefined,
    expiresAt: content.data.time_expire === undefined ? undefined : fromChinaTime(content.data.time_expire),
  });
  return { order };
}

const tradeStatus = { unpaid: "WAIT_BUYER_PAY", paid: "TRADE_SUCCESS", closed: "TRADE_CLOSED" } as const;

export function alipayTradeStatus(order: PaymentOrder): string {
  return tradeStatus[order.state];
}

function existingOrder(
  state: SimulatorState,
  parameters: Record<string, string>,
): { order: PaymentOrder } | { node: Answer } {
  const reference = orderReference.safeParse(parseJson(parameters.biz_content ?? ""));
  if (!reference.success) return { node: invalidArguments("isv.invalid-parameter", "out_trade_no is required") };
  const order = state.payments.orders.find("alipay", reference.data.out_trade_no);
  return order ? { order } : { node: businessFailed("ACQ.TRADE_NOT_EXIST", "交易不存在") };
}

const methods: Record<
  string,
  (exchange: Exchange, state: SimulatorState, parameters: Record<string, string>) => Outcome
> = {
  "alipay.trade.precreate": (exchange, state, parameters) => {
    const opened = openOrder(state, parameters);
    if ("node" in opened) return opened;
    const { order } = opened;
    return { node: { ...success, out_trade_no: order.outTradeNo, qr_code: payPageUrl(exchange, order) } };
  },
  "alipay.trade.page.pay": (exchange, state, parameters) => {
    const opened = openOrder(state, parameters);
    return "node" in opened ? opened : { redirect: payPageUrl(exchange, opened.order) };
  },
  "alipay.trade.query": (_exchange, state, parameters) => {
    const found = existingOrder(state, parameters);
    if ("node" in found) return found;
    const { order } = found;
    return {
      node: {
        ...success,
        trade_no: order.providerTradeNo,
        out_trade_no: order.outTradeNo,
        buyer_logon_id: "sim***@example.com",
        trade_status: alipayTradeStatus(order),
        total_amount: fenToYuan(order.amountFen),
        ...(order.paidAt && { send_pay_date: order.paidAt.toISOString() }),
      },
    };
  },
  "alipay.trade.close": (_exchange, state, parameters) => {
    const found = existingOrder(state, parameters);
    if ("node" in found) return found;
    const { order } = found;
    if (order.state === "paid") return { node: businessFailed("ACQ.TRADE_STATUS_ERROR", "交易状态不合法") };
    order.state = "closed";
    return { node: { ...success, trade_no: order.providerTradeNo, out_trade_no: order.outTradeNo } };
  },
};

/** `/gateway.do`: every open-platform method, checked (app_id, RSA2 signature) the way Alipay does. */
export async function alipayGateway(exchange: Exchange, state: SimulatorState): Promise<void> {
  const credentials: PaymentCredentials = await state.payments.credentials;
  const { appId, app, alipay } = credentials.alipay;
  const parameters = parametersOf(exchange);
  const handler = parameters.method === undefined ? undefined : methods[parameters.method];
  const member = handler ? `${parameters.method!.replaceAll(".", "_")}_response` : "error_response";
  const reply = (node: Answer) => send(exchange, member, node, alipay.privateKey);
  if (!handler) return reply(invalidArguments("isv.invalid-method", "不存在的方法名"));
  if (parameters.app_id !== appId) return reply(invalidArguments("isv.invalid-app-id", "无效的AppID参数"));
  if (parameters.sign_type !== "RSA2") return reply(invalidArguments("isv.invalid-signature-type", "无效的签名类型"));
  if (!verifyParameters(parameters, app.publicKey)) {
    return reply(invalidArguments("isv.invalid-signature", "验签出错"));
  }
  const outcome = handler(exchange, state, parameters);
  if ("node" in outcome) return reply(outcome.node);
  writeHead(exchange, 302, { location: outcome.redirect, "content-length": 0 });
  exchange.response.end();
}
