import { GatewayError } from "@gateway/platform";
import type { KeyRefusal } from "./key-refusal.js";

/**
 * A vendor's error answer as the client sees it (the GatewayError), plus what only operators
 * see: the vendor's own status and words (secrets removed), and whether it refused the key.
 */
export class VendorError extends GatewayError {
  constructor(
    shown: GatewayError,
    readonly vendorStatus: number,
    readonly vendorMessage: string,
    readonly keyRefusal: KeyRefusal | undefined,
  ) {
    super(shown.httpStatus, shown.type, shown.code, shown.message, shown.param, shown.retryAfterMs, shown.headers);
  }
}
