import { rateWindowMs } from "./rate-limits.js";

// An admission lease of a rate-limited group also holds a slice of its key's and account's
// current one-minute window (requests and tokens, counted in Redis when the slice is taken, so
// every router's slices together never pass a limit) and a few concurrency slots (members of
// the key's and account's slot sets, like a request's). lk (keys) and la (arguments) are
// rate-limits.ts's; `check_limits` has already refused a lease short of one request like the
// asking one. `want` (decoded JSON): requests, tokens, concurrent (the limit), slots (ids of
// new slots, as many as the router asks for), held (the slots it holds, kept from lapsing).
// `fits`: how many requests like the asking one the lease's money admits; no more requests,
// tokens or slots are sliced than those, so a slice cannot sit unused for want of money while
// another router is refused for the limit.
// Replies {window, reset ms, requests, tokens, slots granted, requests used, tokens used}, the
// used counts before the slice and of the scope nearer its limit, as the headers count them.
export const takeSliceFunction = `
local function take_slice(lk, la, checked, want, fits)
  local used = checked.used
  local rpm, tpm = tonumber(la[4]), tonumber(la[5])
  local usedRequests = math.max(used[1][1], used[2][1])
  local usedTokens = math.max(used[1][2], used[2][2])
  -- A limit the group does not set is not sliced: nothing to keep exact.
  local requests, tokens = 0, 0
  if rpm > 0 then requests = math.max(0, math.min(tonumber(want.requests), fits, rpm - usedRequests)) end
  if tpm > 0 then tokens = math.max(0, math.min(tonumber(want.tokens), fits * tonumber(la[2]), tpm - usedTokens)) end
  for scope = 1, 2 do
    redis.call('HSET', lk[scope], 'window', checked.window, 'requests', used[scope][1] + requests, 'tokens', used[scope][2] + tokens)
    redis.call('PEXPIRE', lk[scope], ${rateWindowMs} * 2)
  end
  local slots = 0
  local concurrent = tonumber(want.concurrent)
  if concurrent > 0 then
    local expiry = checked.now + tonumber(la[3])
    local held = 0
    for scope = 3, 4 do
      redis.call('ZREMRANGEBYSCORE', lk[scope], '-inf', checked.now)
      held = math.max(held, redis.call('ZCARD', lk[scope]))
    end
    slots = math.max(0, math.min(#want.slots, fits, concurrent - held))
    for scope = 3, 4 do
      for i = 1, slots do redis.call('ZADD', lk[scope], expiry, want.slots[i]) end
      -- XX: a held slot that lapsed meanwhile is not taken again past the limit.
      for _, id in ipairs(want.held) do redis.call('ZADD', lk[scope], 'XX', expiry, id) end
      redis.call('PEXPIRE', lk[scope], la[3])
    end
  end
  return {checked.window, checked.reset, requests, tokens, slots, usedRequests, usedTokens}
end
`;

// Hands back what leases no longer use: `rates`, {window, requests, tokens} each, uncounted
// only while that window is still the current one (an older one's counts no longer matter), and
// the concurrency slots `slots`.
export const returnRestsFunction = `
local function return_rests(lk, rates, slots)
  for _, rest in ipairs(rates) do
    for scope = 1, 2 do
      local counts = redis.call('HMGET', lk[scope], 'window', 'requests', 'tokens')
      if tonumber(counts[1]) == tonumber(rest[1]) then
        redis.call('HSET', lk[scope], 'requests', math.max(0, tonumber(counts[2]) - tonumber(rest[2])),
          'tokens', math.max(0, tonumber(counts[3]) - tonumber(rest[3])))
      end
    end
  end
  if #slots > 0 then
    for scope = 3, 4 do redis.call('ZREM', lk[scope], unpack(slots)) end
  end
end
`;

/** What a lease may still admit of one per-minute limit. */
interface Budget {
  granted: number;
  free: number;
  admitted: number;
}

/** A lease's slice of its rate window; a limit the group does not set has no budget. */
export interface RateSlice {
  window: number;
  // When the window ends on this router's clock, at the latest (measured from before the call).
  endsAt: number;
  requests?: Budget | undefined;
  tokens?: Budget | undefined;
  // What the window had counted before the slice, for the x-ratelimit headers.
  usedRequests: number;
  usedTokens: number;
}

/** The slice `take_slice` answered, `sentAt` being when its call left. */
export function sliceOf(reply: readonly unknown[], sentAt: number, limited: { requests: boolean; tokens: boolean }) {
  const [window, resetMs, requests, tokens, slots, usedRequests, usedTokens] = reply.map(Number) as number[];
  const budget = (granted: number) => ({ granted, free: granted, admitted: 0 });
  const slice: RateSlice = {
    window: window!,
    endsAt: sentAt + resetMs!,
    requests: limited.requests ? budget(requests!) : undefined,
    tokens: limited.tokens ? budget(tokens!) : undefined,
    usedRequests: usedRequests!,
    usedTokens: usedTokens!,
  };
  return { slice, slots: slots! };
}

/** Whether the slice still admits one request of `tokens`. */
export function sliceAdmits(slice: RateSlice, tokens: number, now: number): boolean {
  return (
    now < slice.endsAt &&
    (!slice.requests || slice.requests.free >= 1) &&
    (!slice.tokens || slice.tokens.free >= tokens)
  );
}

/** Admits one request of `tokens` from the slice; answers the used counts its headers show. */
export function spendSlice(slice: RateSlice, tokens: number): { requests: number; tokens: number } {
  for (const [budget, amount] of [
    [slice.requests, 1],
    [slice.tokens, tokens],
  ] as const) {
    if (!budget) continue;
    budget.free -= amount;
    budget.admitted += amount;
  }
  return {
    requests: slice.usedRequests + (slice.requests?.admitted ?? 0),
    tokens: slice.usedTokens + (slice.tokens?.admitted ?? 0),
  };
}

/** Whether half of one of the slice's budgets is spent (time to take the next lease). */
export const sliceHalfSpent = (slice: RateSlice) =>
  [slice.requests, slice.tokens].some((budget) => budget !== undefined && budget.free * 2 < budget.granted);

/** The slice's unspent rest as `return_rests` takes it, if any. */
export function sliceRest(slice: RateSlice): [number, number, number] | undefined {
  const requests = slice.requests?.free ?? 0;
  const tokens = slice.tokens?.free ?? 0;
  return requests > 0 || tokens > 0 ? [slice.window, requests, tokens] : undefined;
}
