import { modelId } from "@gateway/platform";
import { z } from "zod";

// OpenAI's transcription form fields (PROTOCOLS.md A9); the file itself is checked apart.

export const transcriptionFormats = ["json", "text", "srt", "verbose_json", "vtt"] as const;
const granularity = z.enum(["word", "segment"]);

export const transcriptionFieldsSchema = z
  .object({
    model: modelId,
    language: z
      .string()
      .regex(/^[a-z]{2}$/, "expected an ISO-639-1 code such as 'en'")
      .optional(),
    prompt: z.string().optional(),
    response_format: z.enum(transcriptionFormats).optional(),
    temperature: z
      .string()
      .regex(/^\d+(\.\d+)?$/, "expected a number from 0 to 1")
      .transform(Number)
      .pipe(z.number().min(0).max(1))
      .optional(),
    // Sent as repeated `timestamp_granularities[]` fields: one value arrives as a string.
    "timestamp_granularities[]": z
      .union([granularity, z.array(granularity)])
      .transform((value) => (Array.isArray(value) ? value : [value]))
      .optional(),
  })
  .strict()
  .superRefine((fields, context) => {
    if (fields["timestamp_granularities[]"] && fields.response_format !== "verbose_json") {
      context.addIssue({
        code: "custom",
        path: ["timestamp_granularities"],
        message: "timestamp_granularities requires response_format 'verbose_json'",
      });
    }
  });

export type TranscriptionFields = z.infer<typeof transcriptionFieldsSchema>;
