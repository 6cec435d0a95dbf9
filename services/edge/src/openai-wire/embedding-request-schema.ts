import { int32From, modelId } from "@gateway/platform";
import { z } from "zod";

// OpenAI's embeddings request. https://platform.openai.com/docs/api-reference/embeddings/create

export const maxEmbeddingInputs = 2048;
// Token ids travel as int32.
const tokenId = int32From(0);
const tokenIds = z.array(tokenId).min(1);

const inputSchema = z.union(
  [
    z.string().min(1),
    z.array(z.string().min(1)).min(1).max(maxEmbeddingInputs),
    tokenIds,
    z.array(tokenIds).min(1).max(maxEmbeddingInputs),
  ],
  {
    error: `must be a non-empty string, an array of 1 to ${maxEmbeddingInputs} non-empty strings, an array of token ids, or an array of 1 to ${maxEmbeddingInputs} token-id arrays`,
  },
);

export const embeddingRequestSchema = z
  .object({
    model: modelId,
    input: inputSchema,
    encoding_format: z.enum(["float", "base64"]).nullish(),
    dimensions: int32From(1).nullish(),
    user: z.string().optional(),
  })
  .strict();

export type EmbeddingRequestBody = z.infer<typeof embeddingRequestSchema>;
