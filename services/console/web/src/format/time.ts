import dayjs from "dayjs";

export const formatDateTime = (iso: string | null | undefined, never = "—") =>
  iso ? dayjs(iso).format("YYYY-MM-DD HH:mm:ss") : never;

export const formatNumber = (value: number, locale: string) => new Intl.NumberFormat(locale).format(value);

/** The last `days` days ending today, as the API's YYYY-MM-DD bounds. */
export function lastDays(days: number): [string, string] {
  const today = dayjs();
  return [today.subtract(days - 1, "day").format("YYYY-MM-DD"), today.format("YYYY-MM-DD")];
}
