// The providers' side of the two protocols (signing, verification, message shapes, resource
// encryption), for the code that plays a provider: the vendor simulator.
export { alipayTimestamp, signParameters, verifyParameters } from "./alipay/sign-content.js";
export { parseJson } from "./json.js";
export { signSha256WithRsa, verifySha256WithRsa } from "./rsa-sha256.js";
export {
  authorizationScheme,
  newNonce,
  parseAuthorization,
  requestMessage,
  responseMessage,
} from "./wechat-pay/messages.js";
export { encryptResource } from "./wechat-pay/resource-cipher.js";
export { timestampToleranceSeconds } from "./wechat-pay/signature.js";
