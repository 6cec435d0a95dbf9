import type { Admission, AdmissionLeases, RateLimiter, UsagePublisher } from "@gateway/billing";
import type { CatalogueHolder, Channel } from "@gateway/catalogue";
import type { Logger } from "@gateway/platform";
import type { ChatAdapter } from "../adapters/chat-adapter.js";
import type { RouterMetrics } from "../metrics/router-metrics.js";
import type { RequestLogSettings } from "../request-log/request-log.js";
import type { ChannelDisabler } from "../routing/channel-disabler.js";
import type { ChannelHealth } from "../routing/channel-health.js";
import type { KeyRotation } from "../routing/channel-keys.js";
import type { RetrySettings } from "../routing/retry-policy.js";
import type { VendorTimeouts } from "../vendor-http/vendor-client.js";

export interface RouterDependencies {
  catalogue: CatalogueHolder;
  adapterFor(channel: Channel): ChatAdapter;
  usage: Pick<UsagePublisher, "publish">;
  logger: Logger;
  health: ChannelHealth;
  // Which keys the vendors refused, and whose turn it is on each channel.
  keys: { rotation: KeyRotation; disabler: ChannelDisabler };
  // Rate limits and cost reservation, one Redis call per request.
  admission: Admission;
  // Admission without a round trip per request (ROUTER_ADMISSION_LEASE_MAX_MICROS).
  leases?: AdmissionLeases | undefined;
  // Frees a finished request's concurrency slots.
  rateLimits: RateLimiter;
  retry: RetrySettings;
  // Per-attempt timeouts for models whose catalogue entry sets none.
  timeouts: VendorTimeouts;
  requestLog: RequestLogSettings;
  metrics: RouterMetrics;
}
