import { payloadTooLarge } from "@gateway/platform";
import type { RequestHandler } from "express";
import { acceptBody } from "./accept-body.js";
import { type BodyAdmission, declaredBytes, meterBody } from "./body-budget.js";
import { refuseStalledBody } from "./body-transfer.js";
import type { MultipartLimits } from "./read-multipart.js";

// Room for the boundaries and part headers around the files and fields.
const FRAMING_BYTES = 64 * 1024;

/** The most a multipart body within `limits` can weigh on the wire. */
export const multipartBodyLimit = (limits: MultipartLimits) =>
  limits.maxTotalFileBytes + limits.maxFields * limits.maxFieldBytes + FRAMING_BYTES;

/**
 * Admits a multipart upload (read as it streams, by the route: http/read-multipart.ts) under the
 * same budget as JSON bodies: it holds its bytes as they arrive until its answer ends, and a
 * stalled upload is a 408.
 * One declaring more than its endpoint takes is refused before a byte of it is read.
 */
export function multipartBody(limits: MultipartLimits, admission: BodyAdmission): RequestHandler {
  const limitBytes = multipartBodyLimit(limits);
  return (request, response, next) => {
    if (Number(request.headers["content-length"]) > limitBytes) {
      return next(payloadTooLarge(`The request body is too large: this endpoint takes at most ${limitBytes} bytes.`));
    }
    meterBody(admission, request, response, declaredBytes(request, limitBytes));
    acceptBody(request, response, () => {
      refuseStalledBody(request, response);
      next();
    });
  };
}
