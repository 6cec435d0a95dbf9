import { en } from "../src/i18n/en.js";
import { zhCN } from "../src/i18n/zh-CN.js";

// The tests find controls by the words a person sees, in the app's own translations.
export const texts = { "zh-CN": zhCN, en };
export type Language = keyof typeof texts;

/** A translation with its {{placeholders}} filled in. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_match, name: string) => values[name] ?? "");
}
