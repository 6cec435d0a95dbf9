export { type AlipayCallFailure, AlipayClient, type AlipayOrder } from "./alipay/client.js";
export { type AlipayConfig, alipayConfigFromEnv } from "./alipay/config.js";
export {
  type AlipayNotificationResult,
  alipayNotificationAnswer,
  verifyAlipayNotification,
} from "./alipay/notification.js";
export { fenToYuan, yuanToFen } from "./amount.js";
export { type ExpectedPayment, type PaymentMismatch, type ProviderPayment, paymentMismatches } from "./payment.js";
export { type NativeOrder, type WechatPayCallFailure, WechatPayClient } from "./wechat-pay/client.js";
export { type WechatPayConfig, wechatPayConfigFromEnv } from "./wechat-pay/config.js";
export {
  verifyWechatPayNotification,
  type WechatPayNotificationResult,
  wechatPayNotificationAnswer,
} from "./wechat-pay/notification.js";
