import type { AlipayConfig, WechatPayConfig } from "@gateway/payments";
import { alipayMethod, type PaymentMethod, wechatPayMethod } from "./topups/payment-methods.js";

/**
 * The configured payment methods with their notify URLs on the console's public address.
 * Production refuses plain-HTTP provider URLs: only the development simulator speaks HTTP.
 */
export function paymentSetup(
  configs: { wechat: WechatPayConfig | undefined; alipay: AlipayConfig | undefined },
  publicUrl: () => string,
  development: boolean,
) {
  const { wechat, alipay } = configs;
  if (!development) {
    const insecure = [
      wechat && new URL(wechat.baseUrl).protocol !== "https:" && "WECHATPAY_BASE_URL",
      alipay && new URL(alipay.gatewayUrl).protocol !== "https:" && "ALIPAY_GATEWAY_URL",
    ].filter(Boolean);
    if (insecure.length > 0)
      throw new Error(`${insecure.join(", ")} must be https in production (GATEWAY_ENV=production)`);
  }
  const wechatMethod = wechat && wechatPayMethod(wechat, () => `${publicUrl()}/api/payments/wechat/notify`);
  const alipayPayMethod =
    alipay &&
    alipayMethod(
      alipay,
      () => `${publicUrl()}/api/payments/alipay/notify`,
      () => `${publicUrl()}/topup`,
    );
  return {
    wechat: wechat && wechatMethod && { config: wechat, method: wechatMethod },
    alipay: alipay && alipayPayMethod && { config: alipay, method: alipayPayMethod },
    methods: [wechatMethod, alipayPayMethod].filter((method): method is PaymentMethod => method !== undefined),
  };
}
