// Both providers write times in China Standard Time (UTC+8, no daylight saving).
const chinaOffsetMs = 8 * 3600_000;

/** "2026-11-23T22:05:00": the wall-clock time in China, without an offset. */
export function chinaWallClock(date: Date): string {
  return new Date(date.getTime() + chinaOffsetMs).toISOString().slice(0, 19);
}
