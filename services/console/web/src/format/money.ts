// Money arrives as integer micro-yuan (1 yuan = 1,000,000 micros); top-ups are sent in fen.

const MICROS_PER_YUAN = 1_000_000;
const MICROS_PER_FEN = 10_000;

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(locale: string, maximumFractionDigits: number): Intl.NumberFormat {
  const id = `${locale}/${maximumFractionDigits}`;
  let found = formatters.get(id);
  if (!found) {
    found = new Intl.NumberFormat(locale, {
      style: "currency",
      currency: "CNY",
      currencyDisplay: "narrowSymbol",
      minimumFractionDigits: 2,
      maximumFractionDigits,
    });
    formatters.set(id, found);
  }
  return found;
}

/**
 * Yuan with two decimals; amounts below one fen (a single request's cost) keep up to six
 * decimals so they do not all read ¥0.00.
 */
export function formatYuan(micros: number, locale = "zh-CN"): string {
  const digits = micros !== 0 && Math.abs(micros) < MICROS_PER_FEN ? 6 : 2;
  return formatter(locale, digits).format(micros / MICROS_PER_YUAN);
}

export function fenToMicros(fen: number): number {
  return fen * MICROS_PER_FEN;
}

/** Whole fen for a yuan amount typed by a person, or undefined when it has fractions of a fen. */
export function yuanToFen(yuan: number): number | undefined {
  const fen = Math.round(yuan * 100);
  return Number.isFinite(yuan) && Math.abs(fen - yuan * 100) < 1e-6 ? fen : undefined;
}

/** Micros for a yuan amount typed by a person (a spending cap, a credit adjustment). */
export function yuanToMicros(yuan: number): number {
  return Math.round(yuan * MICROS_PER_YUAN);
}

/** A price in yuan to the micro-yuan: catalogue prices are often fractions of a fen. */
export function formatPrice(micros: number, locale = "zh-CN"): string {
  return formatter(locale, 6).format(micros / MICROS_PER_YUAN);
}

/** A price the gateway states as an exact decimal of yuan ("0.0000375"), shown with every digit it has. */
export function formatDecimalYuan(yuan: string, locale = "zh-CN"): string {
  return formatter(locale, 10).format(yuan as `${number}`);
}
