import { modelId } from "@gateway/platform";
import { z } from "zod";

// OpenAI's images requests (PROTOCOLS.md A8). Edge checks the shape; the model's own rules
// (sizes, n, qualities, styles, files) are the router's, which holds the catalogue.

export const maxImagesPerRequest = 10;
const size = z
  .string()
  .max(32)
  .regex(/^\d+x\d+$/, "expected WIDTHxHEIGHT, e.g. 1024x1024");
const responseFormat = z.enum(["url", "b64_json"]);

export const imageGenerationSchema = z
  .object({
    model: modelId,
    prompt: z.string().min(1),
    n: z.number().int().min(1).max(maxImagesPerRequest).nullish(),
    size: size.nullish(),
    quality: z.string().min(1).max(64).nullish(),
    response_format: responseFormat.nullish(),
    style: z.string().min(1).max(64).nullish(),
    // Imagen's and Grok's parameter: the model's catalogue rules list the ratios it takes.
    aspect_ratio: z.string().min(1).max(16).nullish(),
    user: z.string().optional(),
  })
  .strict();

/** Form fields arrive as text; n is a whole number written in digits. */
const formInteger = z
  .string()
  .regex(/^\d+$/, "expected an integer")
  .transform(Number)
  .pipe(z.number().int().min(1).max(maxImagesPerRequest));

export const imageEditFieldsSchema = z
  .object({
    model: modelId,
    prompt: z.string().min(1),
    n: formInteger.optional(),
    size: size.optional(),
    quality: z.string().min(1).max(64).optional(),
    response_format: responseFormat.optional(),
    user: z.string().optional(),
  })
  .strict();

export type ImageGenerationBody = z.infer<typeof imageGenerationSchema>;
export type ImageEditFields = z.infer<typeof imageEditFieldsSchema>;
