import type { GroupLimits } from "@gateway/catalogue";
import { GatewayError, type Logger, LuaScript, type Redis } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { rateLimitKeys } from "./billing-keys.js";
import type { RequestHolder } from "./reservations.js";

// The fixed window the per-minute limits count in (admission leases take slices of one).
export const rateWindowMs = 60_000;
// A concurrency refusal cannot know when a request ends; clients poll again after this.
const concurrencyRetryMs = 1_000;

// One atomic check-and-count for a key and its account, so limits are exact however many
// routers run. Fixed one-minute windows on Redis's clock (router clocks may differ); a
// window hash that belongs to an older minute counts as empty. Concurrency slots are
// request ids scored by lease expiry, so a slot whose router died lapses by itself.
// Written as Lua functions so the admission script (admission.ts) runs them in the same call
// as the cost reservation. lk (keys): key window, account window, key slots, account slots.
// la (arguments): request id, tokens, lease ms, requests per minute, tokens per minute,
// concurrent (0 = no limit). `check_limits` counts nothing: it answers a refusal
// {refusal, scope, wait ms, requests used, tokens used} (refusal 1 requests, 2 tokens,
// 3 concurrency; scope 1 key, 2 account), or nil and what `count_limits` needs. An admitted
// request is counted with or without its concurrency slots and answers {0, 0, the window's
// reset, the larger count of its two scopes}, the one nearer its limit.
export const rateLimitFunctions = `
local function check_limits(lk, la)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  local window = now - now % ${rateWindowMs}
  local reset = window + ${rateWindowMs} - now
  local tokens = tonumber(la[2])
  local rpm, tpm, concurrent = tonumber(la[4]), tonumber(la[5]), tonumber(la[6])
  local used = {}
  for scope = 1, 2 do
    local counts = redis.call('HMGET', lk[scope], 'window', 'requests', 'tokens')
    local requests, spent = 0, 0
    if tonumber(counts[1]) == window then requests, spent = tonumber(counts[2]), tonumber(counts[3]) end
    used[scope] = {requests, spent}
    if rpm > 0 and requests + 1 > rpm then return {1, scope, reset, requests, spent} end
    if tpm > 0 and spent + tokens > tpm then return {2, scope, reset, requests, spent} end
    if concurrent > 0 then
      redis.call('ZREMRANGEBYSCORE', lk[scope + 2], '-inf', now)
      -- A request admitted again (sent on by edge after its first router died) has its slot already.
      local held = redis.call('ZCARD', lk[scope + 2]) - (redis.call('ZSCORE', lk[scope + 2], la[1]) and 1 or 0)
      if held >= concurrent then return {3, scope, ${concurrencyRetryMs}, requests, spent} end
    end
  end
  return nil, {now = now, window = window, reset = reset, tokens = tokens, concurrent = concurrent, used = used}
end
local function count_limits(lk, la, checked, take_slots)
  local used = checked.used
  for scope = 1, 2 do
    redis.call('HSET', lk[scope], 'window', checked.window, 'requests', used[scope][1] + 1, 'tokens', used[scope][2] + checked.tokens)
    redis.call('PEXPIRE', lk[scope], ${rateWindowMs} * 2)
    if take_slots and checked.concurrent > 0 then
      redis.call('ZADD', lk[scope + 2], checked.now + tonumber(la[3]), la[1])
      redis.call('PEXPIRE', lk[scope + 2], la[3])
    end
  end
  return {0, 0, checked.reset, math.max(used[1][1], used[2][1]) + 1, math.max(used[1][2], used[2][2]) + checked.tokens}
end
`;

const admitScript = new LuaScript(`${rateLimitFunctions}
local refusal, checked = check_limits(KEYS, ARGV)
if refusal then return refusal end
return count_limits(KEYS, ARGV, checked, true)
`);

const limitNames = ["requests per minute", "tokens per minute", "concurrent requests"] as const;
const scopeNames = ["API key", "account"] as const;

// OpenAI writes durations as "1s", "6m0s" or "20ms"; seconds with a fraction are read the same way.
const duration = (ms: number) => (ms < 1_000 ? `${ms}ms` : `${Number((ms / 1_000).toFixed(3))}s`);

/** The x-ratelimit-* headers OpenAI sends, for the limits the group sets. */
export function rateLimitHeaders(limits: GroupLimits, requests: number, tokens: number, resetMs: number) {
  const headers: Record<string, string> = {};
  const pairs = [
    ["requests", limits.requests_per_minute, requests],
    ["tokens", limits.tokens_per_minute, tokens],
  ] as const;
  for (const [kind, limit, used] of pairs) {
    if (limit === undefined) continue;
    headers[`x-ratelimit-limit-${kind}`] = String(limit);
    headers[`x-ratelimit-remaining-${kind}`] = String(Math.max(0, limit - used));
    headers[`x-ratelimit-reset-${kind}`] = duration(resetMs);
  }
  return headers;
}

function rateLimitExceeded(
  refusal: 1 | 2 | 3,
  scope: 1 | 2,
  waitMs: number,
  limits: GroupLimits,
  requests: number,
  tokens: number,
  resetMs: number,
): GatewayError {
  const limit = [limits.requests_per_minute, limits.tokens_per_minute, limits.concurrent_requests][refusal - 1];
  const used = refusal === 1 ? requests : refusal === 2 ? tokens : limit;
  return new GatewayError(
    429,
    refusal === 2 ? "tokens" : "requests",
    "rate_limit_exceeded",
    `Rate limit reached for ${limitNames[refusal - 1]} on this ${scopeNames[scope - 1]}: ` +
      `limit ${limit}, used ${used}. Please try again in ${duration(waitMs)}.`,
    null,
    waitMs,
    rateLimitHeaders(limits, requests, tokens, resetMs),
  );
}

/**
 * The headers of an admitted request, or the 429 of a refused one, from the five numbers
 * `check_limits` or `count_limits` answered (admission leases answer from them too).
 */
export function limitsAnswer(reply: readonly unknown[], limits: GroupLimits): Record<string, string> {
  const [refusal, scope, waitMs, requests, spent] = reply.map(Number) as [number, number, number, number, number];
  if (refusal === 0) return rateLimitHeaders(limits, requests, spent, waitMs);
  const resetMs = refusal === 3 ? rateWindowMs - (Date.now() % rateWindowMs) : waitMs;
  throw rateLimitExceeded(refusal as 1 | 2 | 3, scope as 1 | 2, waitMs, limits, requests, spent, resetMs);
}

/**
 * Requests, tokens and concurrent requests per minute of each key and each account, counted
 * in Redis. A request's tokens are its estimated prompt tokens plus the output tokens it may
 * ask for, known at admission. The concurrency slot taken at admission is released when the
 * request ends (with its usage event, see handlers/publish-usage.ts) or when its reservation
 * is refused, or lapses after `leaseMs` if its router dies first.
 */
export class RateLimiter {
  // Requests admitted here that hold concurrency slots, so ending a request without one (no
  // concurrency limit, or admitted while Redis failed) costs no Redis call.
  private readonly holdingSlots = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly leaseMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Counts the request and answers its x-ratelimit-* headers (none when the group sets no
   * per-minute limits), or throws a 429 naming the limit it would exceed; counts nothing then.
   */
  async admit(caller: Caller, limits: GroupLimits, tokens: number): Promise<Record<string, string>> {
    const script = this.scriptInput(caller, limits, tokens);
    if (!script) return {};
    let reply: unknown[];
    try {
      reply = (await admitScript.run(this.redis, script)) as unknown[];
    } catch (error) {
      // Limits protect capacity, not money: the cost reservation that follows still refuses
      // every request it cannot pay for, so an unreachable Redis does not also refuse here.
      this.logger.error({ err: error }, "rate limit check failed; admitting");
      return {};
    }
    return this.answer(reply, caller, limits, true);
  }

  /** The keys and arguments of `check_limits` for this request; none when the group sets no limits. */
  scriptInput(caller: Caller, limits: GroupLimits, tokens: number) {
    if (!limits.requests_per_minute && !limits.tokens_per_minute && !limits.concurrent_requests) return undefined;
    return { keys: this.limitKeys(caller), arguments: this.checkArguments(caller, limits, tokens) };
  }

  /** `check_limits`'s keys: the key's and account's windows, then their slot sets. */
  limitKeys(caller: Pick<Caller, "accountId" | "keyId">): string[] {
    const keys = rateLimitKeys(this.namespace, caller.accountId, caller.keyId);
    return [keys.keyWindow, keys.accountWindow, keys.keySlots, keys.accountSlots];
  }

  /** `check_limits`'s arguments for one request of `tokens`. */
  checkArguments(caller: Caller, limits: GroupLimits, tokens: number): string[] {
    return [
      caller.requestId,
      String(tokens),
      String(this.leaseMs),
      String(limits.requests_per_minute ?? 0),
      String(limits.tokens_per_minute ?? 0),
      String(limits.concurrent_requests ?? 0),
    ];
  }

  /**
   * The headers of an admitted request (remembering the slots it took when `tookSlots`), or the
   * 429 of a refused one, from the five numbers `check_limits` or `count_limits` answered.
   */
  answer(reply: readonly unknown[], caller: Caller, limits: GroupLimits, tookSlots: boolean): Record<string, string> {
    const headers = limitsAnswer(reply, limits);
    if (tookSlots && limits.concurrent_requests) this.holdingSlots.add(caller.requestId);
    return headers;
  }

  /** Frees the request's concurrency slots; a failure only leaves them to lapse with their lease. */
  async release(holder: RequestHolder): Promise<void> {
    if (!this.holdingSlots.delete(holder.requestId)) return;
    const keys = rateLimitKeys(this.namespace, holder.accountId, holder.keyId);
    try {
      await this.redis.multi().zRem(keys.keySlots, holder.requestId).zRem(keys.accountSlots, holder.requestId).exec();
    } catch (error) {
      this.logger.warn({ err: error, request_id: holder.requestId }, "could not free a concurrency slot");
    }
  }
}
