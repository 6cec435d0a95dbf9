/**
 * Redis keys of an account's prepaid balance and open reservations. The braces are a hash
 * tag: every key of one account lives in one Redis Cluster slot, so one script can touch all.
 */
export function billingKeys(namespace: string, accountId: string) {
  const prefix = `${namespace}:{account:${accountId}}`;
  return {
    // The balance in micro-yuan as ledger last committed it.
    balance: `${prefix}:balance`,
    // The account's balance_version that `balance` was written from.
    balanceVersion: `${prefix}:balance-version`,
    // request id → micro-yuan reserved for it.
    reservations: `${prefix}:reservations`,
    // request id, scored by when its reservation lapses if no usage event settles it.
    expiries: `${prefix}:reservation-expiries`,
    // What a key with a spending cap has spent, as ledger last committed it.
    keySpent: (keyId: string) => `${prefix}:key:${keyId}:spent`,
    // request id → micro-yuan reserved against a capped key (the same ids as `reservations`).
    keyReservations: (keyId: string) => `${prefix}:key:${keyId}:reservations`,
  };
}

/**
 * Redis keys of the rate-limit counters of one API key and of its account. They share the
 * account's hash tag, so one script checks and counts both atomically.
 */
export function rateLimitKeys(namespace: string, accountId: string, keyId: string) {
  const prefix = `${namespace}:{account:${accountId}}`;
  return {
    // Hashes {window, requests, tokens} of the current one-minute window.
    keyWindow: `${prefix}:key:${keyId}:rate-window`,
    accountWindow: `${prefix}:rate-window`,
    // Request ids in flight, scored by when their lease lapses if the request never reports its end.
    keySlots: `${prefix}:key:${keyId}:concurrent`,
    accountSlots: `${prefix}:concurrent`,
  };
}
