import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * video_url is a capability: anyone holding it may download until it expires, with no API
 * key (browsers and players cannot send one). The signature is HMAC-SHA256 over the task id
 * and the expiry, keyed with a secret only the video service knows.
 */
export function signContent(key: string, taskId: string, expires: number): string {
  return createHmac("sha256", key).update(`${taskId}.${expires}`).digest("base64url");
}

export function verifyContentSignature(key: string, taskId: string, expires: number, signature: string): boolean {
  const expected = Buffer.from(signContent(key, taskId, expires));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The absolute link edge serves: `<base>/v1/videos/generations/<id>/content?expires=…&signature=…`. */
export function contentUrl(key: string, publicBaseUrl: string, taskId: string, expires: number): string {
  const signature = signContent(key, taskId, expires);
  const base = publicBaseUrl.replace(/\/$/, "");
  return `${base}/v1/videos/generations/${encodeURIComponent(taskId)}/content?expires=${expires}&signature=${signature}`;
}
