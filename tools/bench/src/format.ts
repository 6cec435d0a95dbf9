// How the report writes its figures, shared by every table.

export const ms = (value: number) => value.toFixed(2);
export const signedMs = (value: number) => `${value >= 0 ? "+" : ""}${ms(value)} ms`;
export const perSecond = (value: number) => Math.round(value).toLocaleString("en-US");
