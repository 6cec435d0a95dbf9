import { z } from "zod";
import { tokenPricesSchema } from "./token-prices.js";

const name = z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, "lowercase letters, digits, '.', '_' and '-'");
const envName = z.string().regex(/^[A-Z][A-Z0-9_]*$/);

// The vendor endpoints the gateway can call a chat model on: chat completions (through the
// adapters) and OpenAI's Responses API (relayed as the client sent it).
const vendorApiEndpoints = ["/v1/chat/completions", "/v1/responses"] as const;

export const vendorSchema = z.object({
  owned_by: z.enum(["openai", "anthropic", "google", "xai", "deepseek", "alibaba", "moonshot"]),
  protocol: z.enum(["openai-compatible", "anthropic", "gemini"]),
  // The vendor's base address; adapters append their protocol's paths (/v1/messages, /v1beta/models/...).
  base_url: z.string().url(),
  // What the simulator's address needs appended to stand in for base_url.
  simulator_path: z.string().default(""),
  api_key_env: envName,
  base_url_env: envName,
  // Only for openai-compatible vendors: which row of vendor-profiles.ts applies.
  profile: z.enum(["openai", "xai", "deepseek", "qwen", "moonshot"]).optional(),
  // Which of vendorApiEndpoints the vendor's chat models have (OpenAI's: both); absent, none: its
  // protocol's adapter serves them. A model's `vendor_endpoints` overrides it.
  chat_model_endpoints: z.array(z.enum(vendorApiEndpoints)).min(1).optional(),
});

const modelIdSchema = z.string().min(1).max(128);

export const channelSchema = z.object({
  vendor: name,
  // Overrides of the vendor's defaults for this one endpoint and credential.
  base_url: z.string().url().optional(),
  api_key_env: envName.optional(),
  // Keys held by the catalogue store (encrypted there, decrypted only in memory); they win over
  // the environment's. An exported file never carries them.
  api_keys: z.array(z.string().min(1)).min(1).optional(),
  // Several keys of the same vendor account or of several accounts: requests take turns over them.
  api_keys_env: z.array(envName).min(1).optional(),
  priority: z.number().int().min(0).default(0),
  weight: z.number().int().positive().default(1),
  // The models this channel serves (absent: every model of its vendor that names no channels).
  models: z.array(modelIdSchema).optional(),
  // Public model id -> the id this channel's vendor knows it by (a deployment name, a dated id).
  model_map: z.record(modelIdSchema, z.string().min(1)).optional(),
  // A disabled channel serves nothing until enabled again; the reason tells the operator why.
  disabled: z.boolean().optional(),
  disabled_reason: z.string().optional(),
});

const imageSize = z.string().regex(/^\d+x\d+$/, "WIDTHxHEIGHT");
const aspectRatio = /^\d+(\.\d+)?:\d+(\.\d+)?$/;
// A model whose vendor takes only aspect ratios (Grok's images) lists ratios as its sizes.
const imageShape = z
  .string()
  .refine((value) => /^\d+x\d+$/.test(value) || aspectRatio.test(value), "WIDTHxHEIGHT or W:H");

// Image models: what a request may ask for, and the price of one image by size and quality.
export const imageRulesSchema = z.object({
  sizes: z.array(imageShape).min(1),
  default_size: imageShape,
  max_n: z.number().int().min(1),
  max_prompt_chars: z.number().int().positive(),
  qualities: z.array(z.string().min(1)).min(1),
  // Also the price used for "auto".
  default_quality: z.string().min(1),
  styles: z.array(z.string().min(1)).default([]),
  // Whether the vendor takes response_format (dall-e); GPT image models always answer base64.
  response_format: z.boolean(),
  // Models that take an aspect ratio rather than a size (Imagen): the ratio each size stands for,
  // which the vendor is called with. A request names either the size or the ratio (`aspect_ratio`).
  aspect_ratios: z.record(imageSize, z.string().regex(/^\d+:\d+$/, "W:H")).optional(),
  // Present when the model edits images (and then /v1/images/edits is among its endpoints).
  edits: z
    .object({
      formats: z.array(z.enum(["png", "jpeg", "webp"])).min(1),
      max_bytes: z.number().int().positive(),
      max_images: z.number().int().min(1),
      // dall-e-2 only edits square images.
      square: z.boolean().default(false),
    })
    .optional(),
  // size -> quality -> micro-yuan per image, for models billed per image.
  prices: z.record(imageShape, z.record(z.string(), z.number().int().min(0))).default({}),
  // Set for models billed by token from the usage their vendor answers with (OpenAI's GPT image
  // models): micro-yuan per million image input tokens, while the entry's `price` bills text input
  // (`input`) and image output (`output`). Such a model has no per-image `prices`.
  image_input_price: z.number().int().min(0).optional(),
});

// Speech-to-text models: the response formats they answer and the price of one audio second.
export const audioRulesSchema = z.object({
  response_formats: z.array(z.enum(["json", "text", "srt", "verbose_json", "vtt"])).min(1),
  price_per_second: z.number().int().min(0),
});

// Video models (served by the video service): the vendor's model id and the frame size this
// catalogue id stands for (portrait and -landscape ids share one vendor model), and the price
// of one second of finished video.
export const videoRulesSchema = z.object({
  vendor_model: z.string().min(1),
  size: imageSize,
  price_per_second: z.number().int().min(0),
});

// Embedding models: the vector size they answer with, which sizes `dimensions` may ask for
// (absent: the parameter is refused), and whether they take token-id input.
export const embeddingRulesSchema = z
  .object({
    dimensions: z.number().int().positive(),
    dimensions_range: z.object({ min: z.number().int().positive(), max: z.number().int().positive() }).optional(),
    token_input: z.boolean().default(false),
  })
  .refine((rules) => !rules.dimensions_range || rules.dimensions_range.min <= rules.dimensions_range.max, {
    message: "dimensions_range.min must not exceed max",
  });

// Rate limits of a key group, each applied separately per key and per account (the account's
// counters are checked against the limits of the group of the key in use). Absent: unlimited.
export const groupLimitsSchema = z.object({
  requests_per_minute: z.number().int().positive().optional(),
  // Counts each request's estimated prompt tokens plus its max output tokens at admission.
  tokens_per_minute: z.number().int().positive().optional(),
  concurrent_requests: z.number().int().positive().optional(),
});

export const groupSchema = z.object({
  description: z.string(),
  limits: groupLimitsSchema.optional(),
  // What the group's keys pay over the catalogue's prices, as ledger bills it (ledger.model_groups,
  // kept in step from the catalogue: docs/live-catalogue.md).
  multiplier_basis_points: z.number().int().positive().default(10_000),
});

// How the vendor counts an input image, when its protocol's rule does not fit (see usage/image-tokens.ts).
const imageTokenRuleSchema = z.discriminatedUnion("rule", [
  z.object({ rule: z.literal("tiles"), base: z.number().int().positive(), per_tile: z.number().int().positive() }),
  z.object({
    rule: z.literal("patches"),
    patch_px: z.number().int().positive(),
    max_patches: z.number().int().positive(),
    multiplier: z.number().positive(),
  }),
]);

export const DEFAULT_MAX_IMAGES_PER_REQUEST = 16;

// A model its vendor no longer serves. With `serve`, requests for it are answered by the successor
// (its price, its groups, its answer's `model`; the response header x-gateway-served-model names it);
// without, they are refused with a 404 naming the successor. Either way it leaves /v1/models.
export const retirementSchema = z.object({
  on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD"),
  successor: modelIdSchema,
  serve: z.boolean(),
  // DeepSeek's thinking toggle sent to the successor, when the retired id stood for one of its modes.
  successor_thinking: z.enum(["enabled", "disabled"]).optional(),
});

// A model its vendor has announced it will stop serving: still served and listed until the operator
// retires it, /v1/models showing the shutdown date and the successor (as OpenAI's own list does).
export const deprecationSchema = z.object({
  shutdown_on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD"),
  successor: modelIdSchema,
});

export const modelSchema = z.object({
  id: modelIdSchema,
  // Other ids clients use for this entry (a dated snapshot, a -latest name): they resolve to it, and
  // the vendor is called with `id`.
  aliases: z.array(modelIdSchema).optional(),
  // Where the entry's prices and limits were read (the vendor's pricing or model page).
  source: z.string().url().optional(),
  vendor: name,
  created: z.number().int().positive(),
  context_window: z.number().int().positive(),
  // Chat models only: the ceiling on max_tokens, and what to send when a vendor needs a value the client did not give.
  max_output_tokens: z.number().int().positive().optional(),
  default_max_tokens: z.number().int().positive().optional(),
  endpoints: z.array(z.string().startsWith("/v1/")).min(1),
  // The endpoints the model has at its vendor, where they differ from its vendor's chat_model_endpoints
  // (a model OpenAI offers only on its Responses API: [/v1/responses], and then only /v1/responses
  // among `endpoints`).
  vendor_endpoints: z.array(z.enum(vendorApiEndpoints)).min(1).optional(),
  capabilities: z.array(z.enum(["vision", "tools", "json", "reasoning", "image_edit"])).default([]),
  // Vision models: the most images one chat request may carry (DEFAULT_MAX_IMAGES_PER_REQUEST
  // when unset), checked before any vendor call: each is a download for vendors that take only inline data.
  max_images_per_request: z.number().int().positive().max(1000).optional(),
  // Micro-yuan per million tokens, each a number or a base with bands above a prompt length
  // (token-prices.ts). Absent, every token price is the price dataset's in force today at the
  // catalogue's exchange rate (model-prices.ts); set, it replaces them all.
  price: tokenPricesSchema.optional(),
  // Why `price` is set: required where the vendor lists yuan prices or the dataset lacks the model.
  price_reason: z.string().min(1).max(200).optional(),
  // The model's id and provider in the price dataset, where they differ from `id` and the vendor's.
  dataset_id: z.string().min(1).optional(),
  dataset_provider: z.string().min(1).optional(),
  // Vendor options priced above the standard rate, each a multiplier in basis points on every token
  // price: OpenAI's service_tier "priority", Claude's speed "fast" and inference_geo "us". A request
  // asking for one the entry does not price is refused before any vendor call.
  surcharges: z
    .object({
      priority: z.number().int().min(10_000).optional(),
      fast: z.number().int().min(10_000).optional(),
      us_inference: z.number().int().min(10_000).optional(),
    })
    .strict()
    .optional(),
  // How a Claude model takes thinking, and how "no thinking" is spelled to it (docs/catalogue.md):
  // - budget (the default): extended thinking with budget_tokens, off unless asked for;
  // - adaptive: adaptive only with an effort (a budget is a 400), off unless asked for (Opus 4.7, 4.8);
  // - adaptive_on: adaptive only, on unless turned off with {type: "disabled"} (Opus 5, Sonnet 5, Haiku 5.5);
  // - between_tools: adaptive only, on by default; {type: "disabled"} is a 400 and {type: "between_tools"}
  //   (thinking only between tool calls) is the least there is (Sonnet 5.5);
  // - always: adaptive only and cannot be turned off ("disabled" is a 400): a request for no thinking
  //   gets the lowest effort (Opus 5.5, Fable 5.x).
  thinking: z.enum(["budget", "adaptive", "adaptive_on", "between_tools", "always"]).optional(),
  // What the vendor answers with a 400 on this model, and how the gateway keeps clients working:
  // sampling parameters are left out; `forced_tool_choice` (Claude Opus 5.5, Sonnet 5.5, Fable 5.1 on)
  // is emulated: a named function is sent as the only tool with tool_choice auto and an instruction
  // to call it, "required" as auto with an instruction to call one (best effort, docs/catalogue.md);
  // `prefill` (a final assistant turn, Claude Haiku 5.5) is refused with a 400 before any vendor call.
  refuses: z.array(z.enum(["temperature", "top_p", "top_k", "forced_tool_choice", "prefill"])).optional(),
  // The reasoning efforts the vendor takes for this model (OpenAI-protocol vendors); absent, any. An
  // effort outside the list is moved to the nearest one it has (GPT-6.2 refuses "none" and "minimal").
  reasoning_efforts: z
    .array(z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]))
    .min(1)
    .optional(),
  // The OpenAI encoding that counts the model's prompts exactly; absent, the text's UTF-8 bytes bound it (router usage/script-token-bound.ts).
  tokenizer: z.enum(["o200k_base", "cl100k_base"]).optional(),
  image_tokens: imageTokenRuleSchema.optional(),
  groups: z.array(name).min(1),
  channels: z.array(name).optional(),
  images: imageRulesSchema.optional(),
  audio: audioRulesSchema.optional(),
  video: videoRulesSchema.optional(),
  embedding: embeddingRulesSchema.optional(),
  // Per-attempt vendor timeouts; the router's defaults apply to what is left out.
  timeouts: z
    .object({
      connect_ms: z.number().int().positive().optional(),
      first_byte_ms: z.number().int().positive().optional(),
      idle_ms: z.number().int().positive().optional(),
    })
    .optional(),
  retired: retirementSchema.optional(),
  deprecated: deprecationSchema.optional(),
});

// The operator's rate for turning the dataset's US dollar prices into yuan, and the day it was set.
export const exchangeRateSchema = z.object({
  yuan_per_usd: z.number().positive(),
  on: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD"),
});

export const catalogueFileSchema = z.object({
  // Required once any model takes its prices from the dataset.
  exchange_rate: exchangeRateSchema.optional(),
  groups: z.record(name, groupSchema),
  vendors: z.record(name, vendorSchema),
  channels: z.record(name, channelSchema),
  models: z.array(modelSchema).min(1),
});

export type CatalogueFile = z.infer<typeof catalogueFileSchema>;
export type VendorEntry = z.infer<typeof vendorSchema>;
export type VendorProtocol = VendorEntry["protocol"];
export type ModelEntry = z.infer<typeof modelSchema>;
export type ExchangeRate = z.infer<typeof exchangeRateSchema>;
export type Retirement = z.infer<typeof retirementSchema>;
export type ImageRules = z.infer<typeof imageRulesSchema>;
export type AudioRules = z.infer<typeof audioRulesSchema>;
export type VideoRules = z.infer<typeof videoRulesSchema>;
export type EmbeddingRules = z.infer<typeof embeddingRulesSchema>;
export type GroupLimits = z.infer<typeof groupLimitsSchema>;
export type GroupEntry = z.infer<typeof groupSchema>;
export type ChannelEntry = z.infer<typeof channelSchema>;
