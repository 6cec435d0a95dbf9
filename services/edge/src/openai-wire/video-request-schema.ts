import { modelId, storableText } from "@gateway/platform";
import { z } from "zod";

// POST /v1/videos/generations as the spec defines it. duration defaults to 5 seconds (the spec
// leaves the default open; 5 is its shortest and cheapest value). async must be true: the
// endpoint only runs asynchronously and the spec makes the field required.

export const VIDEO_DURATIONS = [5, 10, 15, 20] as const;

export const videoGenerationSchema = z
  .object({
    model: modelId,
    prompt: storableText.trim().min(1, "must not be empty").max(32_000),
    duration: z
      .union(
        VIDEO_DURATIONS.map((seconds) => z.literal(seconds)),
        { error: `must be one of ${VIDEO_DURATIONS.join(", ")} (seconds)` },
      )
      .default(5),
    async: z.literal(true, {
      error: 'must be true: video generation only runs asynchronously; submit with "async": true and poll the task',
    }),
    // Called with the finished task (HMAC-signed, see docs/architecture.md).
    callback_url: storableText
      .max(2048)
      .refine((url) => URL.canParse(url) && /^https?:$/.test(new URL(url).protocol), {
        message: "must be an http(s) URL",
      })
      .optional(),
  })
  .strict();

export type VideoGenerationBody = z.infer<typeof videoGenerationSchema>;

/** The spec's polling advice: every 5-10 s for 5-10 s videos, every 15-30 s for 15-20 s videos. */
export const pollAfterSeconds = (durationSeconds: number) => (durationSeconds <= 10 ? 5 : 15);
