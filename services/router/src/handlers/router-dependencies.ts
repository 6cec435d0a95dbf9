import type { Logger, UsagePublisher } from "@gateway/shared";
import type { ChatAdapter } from "../adapters/chat-adapter.js";
import type { RateLimiter } from "../billing/rate-limits.js";
import type { Reservations } from "../billing/reservations.js";
import type { Channel } from "../catalogue/catalogue.js";
import type { CatalogueHolder } from "../catalogue/catalogue-holder.js";
import type { RequestLogSettings } from "../request-log/request-log.js";
import type { ChannelHealth } from "../routing/channel-health.js";
import type { RetrySettings } from "../routing/retry-policy.js";
import type { VendorTimeouts } from "../vendor-http/vendor-client.js";

export interface RouterDependencies {
  catalogue: CatalogueHolder;
  adapterFor(channel: Channel): ChatAdapter;
  usage: Pick<UsagePublisher, "publish">;
  logger: Logger;
  health: ChannelHealth;
  reservations: Reservations;
  rateLimits: RateLimiter;
  retry: RetrySettings;
  // Per-attempt timeouts for models whose catalogue entry sets none.
  timeouts: VendorTimeouts;
  requestLog: RequestLogSettings;
}
