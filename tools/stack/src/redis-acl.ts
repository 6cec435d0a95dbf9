/**
 * The commands the gateway's services send to Redis: their own, the ones their Lua scripts
 * call (Redis checks those against the user too), and the client's connection handshake.
 */
export const gatewayRedisCommands = [
  "auth",
  "hello",
  "ping",
  "quit",
  "multi",
  "exec",
  "discard",
  "eval",
  "evalsha",
  "time",
  "get",
  "incr",
  "decr",
  "pttl",
  "set",
  "del",
  "pexpire",
  "pexpireat",
  "hdel",
  "hget",
  "hgetall",
  "hkeys",
  "hlen",
  "hmget",
  "hset",
  "hvals",
  "sadd",
  "spop",
  "zadd",
  "zcard",
  "zrangebyscore",
  "zrem",
  "zremrangebyscore",
  "zscore",
] as const;

/** `ACL SETUSER <user> …` rules: the gateway's commands on its namespace's keys, no pub/sub, nothing else. */
export function redisAclRules(namespace: string, password: string): string[] {
  return [
    "reset",
    "on",
    `>${password}`,
    `~${namespace}:*`,
    "resetchannels",
    "-@all",
    ...gatewayRedisCommands.map((command) => `+${command}`),
  ];
}
