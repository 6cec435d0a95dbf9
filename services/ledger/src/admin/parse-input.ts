import { invalidRequest } from "@gateway/platform";
import type { z } from "zod";
import { parseYuan } from "../money.js";

/** Validates a request body or query; the first problem becomes an OpenAI-shaped 400. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const param = issue.path.join(".") || null;
  throw invalidRequest(param ? `Invalid \`${param}\`: ${issue.message}` : issue.message, param);
}

/** An amount of yuan from a request, as exact micros; a bad amount is a 400 naming `param`. */
export function yuanToMicros(value: string | number, param: string, minimumYuan: bigint): bigint {
  const parsed = parseYuan(value, minimumYuan);
  if ("error" in parsed) throw invalidRequest(`Invalid \`${param}\`: ${parsed.error}`, param);
  return parsed.micros;
}
