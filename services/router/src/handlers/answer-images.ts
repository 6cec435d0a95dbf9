import { type RequestFacts, UsageOutcome } from "@gateway/billing";
import { inSpan, type UnaryContext } from "@gateway/platform";
import type { GeneratedImage, ImagesResponse } from "@gateway/proto/router/v1/images";
import type { AdapterCall } from "../adapters/chat-adapter.js";
import type { VendorImage, VendorImages } from "../adapters/openai-media/media-adapter.js";
import { unitsCostMicros } from "../billing/worst-case-cost.js";
import type { FileStore } from "../media/file-store.js";
import { readImageHeader } from "../media/image-header.js";
import type { ImageChoice } from "../media/image-rules.js";
import { imagesAnswerLog } from "../request-log/answer-bodies.js";
import { malformedAnswer } from "../vendor-http/parse-vendor-json.js";
import { sendHeadersBeforeVendor } from "./call-headers.js";
import { publishFailure, publishUsage } from "./publish-usage.js";
import { admitCost, callWithFailover } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

export interface ImagesJob<Request> {
  request: Request;
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

/** Calls the vendor with failover, keeps the images as asked, and bills each image at the size and quality price. */
export function answerImages<Request>(
  deps: RouterDependencies,
  files: FileStore,
  job: ImagesJob<Request>,
): Promise<ImagesResponse> {
  const { facts, context, logged } = job;
  const { signal } = context;
  return inSpan("router.images", { "gateway.model": facts.model.id, "gateway.endpoint": facts.endpoint }, async () => {
    const worstCase = unitsCostMicros(job.choice.n, job.choice.priceMicros, facts.caller.multiplierBasisPoints);
    await admitCost(deps, facts, 0, worstCase);
    await sendHeadersBeforeVendor(context, facts);
    try {
      const answer = await callWithFailover(deps, job.request, facts, signal, job.callVendor);
      const data = await Promise.all(answer.images.map((image) => toGenerated(image, job.wantsUrl, files)));
      const units = { count: data.length, unit: "image", priceMicros: job.choice.priceMicros };
      const images = { created: answer.created || Math.floor(facts.startedAt / 1000), data };
      const outcome = UsageOutcome.USAGE_OUTCOME_OK;
      publishUsage(
        deps,
        facts,
        { usage: undefined, estimated: false, outcome, units },
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
