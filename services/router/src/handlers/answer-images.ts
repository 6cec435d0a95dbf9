import { type Outcome, type RequestFacts, UsageOutcome } from "@gateway/billing";
import { inSpan, type UnaryContext } from "@gateway/platform";
import type { GeneratedImage, ImagesResponse } from "@gateway/proto/router/v1/images";
import type { AdapterCall } from "../adapters/chat-adapter.js";
import type { VendorImage, VendorImages } from "../adapters/openai-media/media-adapter.js";
import { imageTokensWorstCase, unitsCostMicros } from "../billing/worst-case-cost.js";
import type { FileStore } from "../media/file-store.js";
import { readImageHeader } from "../media/image-header.js";
import type { ImageChoice } from "../media/image-rules.js";
import { imagesAnswerLog } from "../request-log/answer-bodies.js";
import { TextTokenCounter } from "../usage/text-tokens.js";
import { malformedAnswer } from "../vendor-http/parse-vendor-json.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import type { MediaDependencies } from "./images.js";
import { publishFailure, publishUsage } from "./publish-usage.js";
import { admitCost, callWithFailover } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

export interface ImagesJob<Request extends { prompt: string }> {
  request: Request;
  // The images the request sends the vendor (an edit's), each counted at the per-image token bound.
  inputImages: number;
  facts: RequestFacts;
  choice: ImageChoice;
  // The client asked for url (dall-e's default); the gateway then stores the image and edge signs a URL.
  wantsUrl: boolean;
  context: UnaryContext;
  // The request as the request log keeps it.
  logged: () => unknown;
  callVendor(call: AdapterCall<Request>): Promise<VendorImages>;
}

/** dall-e answers `url` unless told otherwise; models without response_format always answer base64. */
export const wantsUrl = (acceptsResponseFormat: boolean, responseFormat: string | undefined) =>
  acceptsResponseFormat && (responseFormat ?? "url") === "url";

async function toGenerated(image: VendorImage, wantsUrl: boolean, files: FileStore): Promise<GeneratedImage> {
  const revisedPrompt = image.revisedPrompt;
  if (!wantsUrl) return { b64Json: image.b64Json, revisedPrompt };
  const bytes = Buffer.from(image.b64Json, "base64");
  const header = readImageHeader(bytes);
  if (!header) throw malformedAnswer();
  return { fileId: await files.save(bytes, header.format), revisedPrompt };
}

/**
 * What an images request reserves, and how its answer is billed: per image at the size and
 * quality price, or, for a model billed by token, from the vendor's usage (the reservation's
 * bound, flagged as estimated, should the vendor report none).
 */
function imagesBilling<Request extends { prompt: string }>(job: ImagesJob<Request>, tokensPerImage: number) {
  const { facts, choice } = job;
  const multiplier = facts.caller.multiplierBasisPoints;
  if (facts.model.images?.image_input_price === undefined) {
    return {
      worstCase: { tokens: 0, costMicros: unitsCostMicros(choice.n, choice.priceMicros, multiplier) },
      outcome: (answer: VendorImages, count: number): Outcome => ({
        usage: undefined,
        estimated: false,
        outcome: UsageOutcome.USAGE_OUTCOME_OK,
        units: { count, unit: "image", priceMicros: choice.priceMicros },
      }),
    };
  }
  const prompt = {
    textTokens: new TextTokenCounter(facts.model.tokenizer).count(job.request.prompt),
    images: job.inputImages,
  };
  const bound = imageTokensWorstCase(prompt, choice.n, tokensPerImage, facts.model, multiplier);
  const boundUsage = { ...bound.usage, totalTokens: bound.usage.promptTokens + bound.usage.completionTokens };
  return {
    worstCase: { tokens: boundUsage.totalTokens, costMicros: bound.costMicros },
    outcome: (answer: VendorImages): Outcome => ({
      usage: answer.usage ?? boundUsage,
      estimated: answer.usage === undefined,
      outcome: UsageOutcome.USAGE_OUTCOME_OK,
    }),
  };
}

/** Calls the vendor with failover, keeps the images as asked, and bills them as the model is priced. */
export function answerImages<Request extends { prompt: string }>(
  deps: RouterDependencies,
  media: MediaDependencies,
  job: ImagesJob<Request>,
): Promise<ImagesResponse> {
  const { facts, context, logged } = job;
  const { signal } = context;
  return inSpan("router.images", { "gateway.model": facts.model.id, "gateway.endpoint": facts.endpoint }, async () => {
    const billing = imagesBilling(job, media.imageOutputTokensBound);
    await admitCost(deps, facts, billing.worstCase.tokens, billing.worstCase.costMicros);
    await sendHeadersBeforeVendor(context, facts);
    try {
      const answer = await callWithFailover(deps, job.request, facts, signal, job.callVendor);
      const data = await Promise.all(answer.images.map((image) => toGenerated(image, job.wantsUrl, media.files)));
      const created = answer.created || Math.floor(facts.startedAt / 1000);
      const images: ImagesResponse = { created, data, ...(answer.usage && { usage: answer.usage }) };
      publishUsage(
        deps,
        facts,
        billing.outcome(answer, data.length),
        { request: logged, answer: () => imagesAnswerLog(images) },
        context,
      );
      return images;
    } catch (error) {
      publishFailure(deps, facts, error, signal, logged);
      throw error;
    }
  });
}
