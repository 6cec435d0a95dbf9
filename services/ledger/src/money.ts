/** Money is integer micro-yuan everywhere: 1 yuan = 1,000,000 micros. Never a float. */
export const MICROS_PER_YUAN = 1_000_000n;

// Large enough for any real top-up, small enough that balances stay far from BigInt column limits.
const MAX_YUAN = 1_000_000_000n;

const yuanPattern = /^(\d+)(?:\.(\d{1,2}))?$/;

/**
 * Converts an amount of yuan written in decimal ("12", "12.5", "12.34") to micros by string
 * arithmetic, so 0.1 + 0.2 problems cannot occur. Numbers are accepted through their
 * shortest decimal form (String(12.34) === "12.34"). Returns an error message instead of
 * throwing so callers can attach it to their own parameter name.
 */
export function parseYuan(value: string | number, minimumYuan = 1n): { micros: bigint } | { error: string } {
  const text = typeof value === "number" ? String(value) : value.trim();
  const match = yuanPattern.exec(text);
  if (!match) return { error: `must be an amount of yuan with at most 2 decimals, like 10 or 12.34 (got ${text})` };
  const whole = BigInt(match[1]!);
  const cents = BigInt((match[2] ?? "").padEnd(2, "0"));
  const micros = whole * MICROS_PER_YUAN + cents * (MICROS_PER_YUAN / 100n);
  if (micros < minimumYuan * MICROS_PER_YUAN) return { error: `must be at least ${minimumYuan} yuan` };
  if (whole >= MAX_YUAN) return { error: `must be less than ${MAX_YUAN} yuan` };
  return { micros };
}
