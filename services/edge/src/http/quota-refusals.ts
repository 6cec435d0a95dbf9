import { GatewayError } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { NextFunction, Request, Response } from "express";

// As long as a resolved key is cached: a top-up is served within this, as a new key is.
const REMEMBERED_MS = 5_000;
// Bodies below this go to router, which checks the balance exactly; above it, a body an
// account just could not pay for is refused before edge reads, parses or loads anything.
export const LARGE_BODY_BYTES = 1024 * 1024;
const MOST_REMEMBERED = 100_000;

const stillUnpaid = () =>
  new GatewayError(
    429,
    "insufficient_quota",
    "insufficient_quota",
    "You exceeded your current quota: your last request could not be paid for. Top up your balance, or lower max_tokens.",
  );

/**
 * Accounts router just refused for their balance (insufficient_quota), remembered briefly so
 * their next large requests are refused before their bodies hold any of edge's memory or CPU:
 * a key with nothing to spend cannot make edge and router parse 20 MB bodies for nothing.
 */
export class QuotaRefusals {
  private readonly until = new Map<string, number>();

  /** Middleware, after authentication: remembers the account when its answer is that refusal. */
  readonly watch = (_request: Request, response: Response, next: NextFunction): void => {
    response.once("finish", () => {
      if (response.locals.errorType !== "insufficient_quota") return;
      const caller = response.locals.caller as Caller | undefined;
      if (caller) this.remember(caller.accountId);
    });
    next();
  };

  /** Throws the refusal when `accountId` was just refused for its balance and `size` is large. */
  check(accountId: string | undefined, size: number): void {
    if (accountId === undefined || size < LARGE_BODY_BYTES) return;
    const until = this.until.get(accountId);
    if (until === undefined) return;
    if (until > Date.now()) throw stillUnpaid();
    this.until.delete(accountId);
  }

  private remember(accountId: string): void {
    const now = Date.now();
    // Not renewed while current: edge's own refusals answer insufficient_quota too, and an
    // account that kept sending would otherwise stay refused after its top-up.
    if ((this.until.get(accountId) ?? 0) > now) return;
    if (this.until.size >= MOST_REMEMBERED) {
      for (const [account, until] of this.until) if (until <= now) this.until.delete(account);
      if (this.until.size >= MOST_REMEMBERED) return;
    }
    this.until.set(accountId, now + REMEMBERED_MS);
  }
}
