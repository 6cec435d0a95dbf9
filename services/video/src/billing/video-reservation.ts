import { priceUsage } from "@gateway/billing";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { VideoModel } from "../tasks/find-video-model.js";

/**
 * What a task may cost at most: every requested second at the catalogue's per-second price
 * and the key's group multiplier, priced exactly as ledger will charge the delivered seconds.
 */
export function videoWorstCaseMicros(video: VideoModel, seconds: number, caller: Caller): bigint {
  return priceUsage({
    promptTokens: 0,
    completionTokens: 0,
    inputPriceMicros: 0,
    outputPriceMicros: 0,
    billedUnits: seconds,
    unitPriceMicros: video.rules.price_per_second,
    multiplierBasisPoints: caller.multiplierBasisPoints,
  });
}
