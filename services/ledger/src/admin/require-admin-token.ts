import { createHash, timingSafeEqual } from "node:crypto";
import { invalidApiKey } from "@gateway/platform";
import type { RequestHandler } from "express";
import { bearerToken } from "../http/bearer-token.js";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * Lets a request through only with `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`. Both
 * sides are hashed first so the comparison is constant-time whatever their lengths.
 */
export function requireAdminToken(adminToken: string): RequestHandler {
  const expected = digest(adminToken);
  return (request, _response, next) => {
    const presented = bearerToken(request);
    if (presented && timingSafeEqual(digest(presented), expected)) return next();
    next(invalidApiKey("Missing or incorrect admin token: send Authorization: Bearer <GATEWAY_ADMIN_TOKEN>."));
  };
}
