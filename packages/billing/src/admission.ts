import type { GroupLimits } from "@gateway/catalogue";
import { LuaScript, type Redis } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import { type RateLimiter, rateLimitFunctions } from "./rate-limits.js";
import { type Reservations, reserveFunction } from "./reservations.js";

// The rate limits and the cost reservation in one Redis call: check the limits (counting
// nothing), reserve, then count the request, with its concurrency slots only if it was
// reserved (a refused reservation ends the request at once, as if its slot were freed).
// A balance Redis does not hold yet counts nothing either, so the call can run again after
// ledger loads it. KEYS: the reservation's five, then the limits' four; ARGV likewise (5, 6).
// Replies the limits' five numbers, then the reservation's {outcome, available}
// (outcome 3: not tried, a limit refused).
const admissionScript = new LuaScript(`${rateLimitFunctions}
${reserveFunction}
local rk = {KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]}
local ra = {ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]}
local lk = {KEYS[6], KEYS[7], KEYS[8], KEYS[9]}
local la = {ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11]}
local refusal, checked = check_limits(lk, la)
if refusal then return {refusal[1], refusal[2], refusal[3], refusal[4], refusal[5], 3, '0'} end
local reserved = reserve(rk, ra)
if reserved[1] == -1 then return {0, 0, 0, 0, 0, -1, '0'} end
local counted = count_limits(lk, la, checked, reserved[1] == 1)
return {counted[1], counted[2], counted[3], counted[4], counted[5], reserved[1], reserved[2]}
`);

/**
 * Admits a request: its key's and account's rate limits, then its worst-case cost, in one
 * Redis round trip (a group without limits runs the reservation alone). Answers the
 * x-ratelimit-* headers, or throws the 429 of the limit or of the balance (503 when Redis fails).
 */
export class Admission {
  constructor(
    private readonly redis: Redis,
    readonly rateLimits: RateLimiter,
    readonly reservations: Reservations,
  ) {}

  async admit(
    caller: Caller,
    limits: GroupLimits,
    tokens: number,
    costMicros: bigint,
    // How long the reservation is held if no usage event settles it (the reservations' default).
    ttlMs?: number,
  ): Promise<Record<string, string>> {
    const limitInput = this.rateLimits.scriptInput(caller, limits, tokens);
    if (!limitInput) {
      await this.reservations.reserve(caller, costMicros, ttlMs);
      return {};
    }
    let headers: Record<string, string> = {};
    const run = async (reservation: { keys: string[]; arguments: string[] }) => {
      const reply = (await admissionScript.run(this.redis, {
        keys: [...reservation.keys, ...limitInput.keys],
        arguments: [...reservation.arguments, ...limitInput.arguments],
      })) as unknown[];
      const reserved = reply.slice(5);
      headers = this.rateLimits.answer(reply.slice(0, 5), caller, limits, Number(reserved[0]) === 1);
      return reserved;
    };
    await this.reservations.reserveThrough(caller, costMicros, run, ttlMs);
    return headers;
  }
}
