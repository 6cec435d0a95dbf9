import { z } from "zod";

const reportedSchema = z.object({
  // verbose_json
  duration: z.number().nonnegative().optional(),
  // json from whisper: {type:"duration", seconds}; token usage (gpt-4o-transcribe) states no length.
  usage: z.object({ type: z.string(), seconds: z.number().nonnegative().optional() }).optional(),
});

/** The audio length the vendor reported in a JSON transcript; undefined for text formats and token usage. */
export function reportedDurationSeconds(text: string, contentType: string): number | undefined {
  if (!contentType.includes("json")) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = reportedSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  if (parsed.data.duration !== undefined) return parsed.data.duration;
  return parsed.data.usage?.type === "duration" ? parsed.data.usage.seconds : undefined;
}
