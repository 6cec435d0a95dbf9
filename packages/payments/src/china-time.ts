// Both providers write times in China Standard Time (UTC+8, no daylight saving).
const chinaOffsetMs = 8 * 3600_000;

/** "2026-11-23T22:05:00": the wall-clock time in China, without an offset. */
export function chinaWallClock(date: Date): string {
  return new Date(date.getTime() + chinaOffsetMs).toISOString().slice(0, 19);
}

/**
 * When a provider says something happened: Alipay's "yyyy-MM-dd HH:mm:ss" is China time, WeChat
 * Pay's RFC 3339 carries its offset. Undefined for absent or unreadable text.
 */
export function providerTime(text: string | undefined): Date | undefined {
  if (!text) return undefined;
  const chinaWallClockText = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text);
  const ms = chinaWallClockText ? Date.parse(`${text.replace(" ", "T")}Z`) - chinaOffsetMs : Date.parse(text);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}
