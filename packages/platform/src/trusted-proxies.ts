import proxyAddr from "proxy-addr";
import { z } from "zod";

/** Express's `trust proxy`: nobody, a hop count, or the proxies' addresses and CIDRs. */
export type TrustedProxies = false | number | string[];

/** Refuses what Express would refuse (it compiles the list with proxy-addr), at start-up rather than on the first request. */
function compiles(setting: string[]): boolean {
  try {
    proxyAddr.compile(setting);
    return true;
  } catch {
    return false;
  }
}

/**
 * `GATEWAY_TRUSTED_PROXIES` (edge), `CONSOLE_TRUSTED_PROXIES` (console): who may tell the
 * service the client's address, scheme and host (X-Forwarded-For, -Proto, -Host). Unset trusts no one: the peer's own address is the
 * client's. A number trusts that many hops in front of edge; otherwise a comma-separated
 * list of addresses, CIDRs and `loopback`, `linklocal` or `uniquelocal`. Trusting every peer
 * is not offered: any client could then choose the address it is throttled by.
 */
export const trustedProxiesSetting = z
  .string()
  .trim()
  .default("")
  .transform((text, context): TrustedProxies => {
    if (text === "") return false;
    const setting = /^\d+$/.test(text)
      ? Number(text)
      : text
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean);
    if (typeof setting === "number" ? setting >= 1 && setting <= 16 : compiles(setting)) return setting;
    context.addIssue({
      code: "custom",
      message: "a hop count (1-16) or comma-separated addresses, CIDRs, loopback, linklocal or uniquelocal",
    });
    return z.NEVER;
  });
