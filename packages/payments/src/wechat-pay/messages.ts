import { randomBytes } from "node:crypto";

/** What the merchant signs for a request: `url` is the path with its query, the body empty for GET. */
export function requestMessage(method: string, url: string, timestamp: string, nonce: string, body: string): string {
  return `${method}\n${url}\n${timestamp}\n${nonce}\n${body}\n`;
}

/** What WeChat Pay signs for a response or a notification: the body exactly as sent, never re-serialised. */
export function responseMessage(timestamp: string, nonce: string, body: string): string {
  return `${timestamp}\n${nonce}\n${body}\n`;
}

/** 32 random upper-case letters and digits, the shape WeChat Pay's documentation uses. */
export function newNonce(): string {
  return randomBytes(16).toString("hex").toUpperCase();
}

export const authorizationScheme = "WECHATPAY2-SHA256-RSA2048";

export interface AuthorizationParameters {
  mchid: string;
  nonce_str: string;
  signature: string;
  timestamp: string;
  serial_no: string;
}

export function formatAuthorization(parameters: AuthorizationParameters): string {
  const fields = Object.entries(parameters).map(([name, value]) => `${name}="${value}"`);
  return `${authorizationScheme} ${fields.join(",")}`;
}

/** The five parameters of an Authorization header in any order, or undefined when one is missing. */
export function parseAuthorization(header: string | undefined): AuthorizationParameters | undefined {
  if (!header?.startsWith(`${authorizationScheme} `)) return undefined;
  const fields = new Map<string, string>();
  for (const match of header.slice(authorizationScheme.length + 1).matchAll(/(\w+)="([^"]*)"/g)) {
    fields.set(match[1]!, match[2]!);
  }
  const [mchid, nonce_str, signature, timestamp, serial_no] = [
    "mchid",
    "nonce_str",
    "signature",
    "timestamp",
    "serial_no",
  ].map((name) => fields.get(name));
  if (!mchid || !nonce_str || !signature || !timestamp || !serial_no) return undefined;
  return { mchid, nonce_str, signature, timestamp, serial_no };
}
