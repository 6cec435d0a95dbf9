import type { Reservations, UsagePublisher } from "@gateway/billing";
import type { CatalogueHolder } from "@gateway/catalogue";
import type { Logger, SqlPool } from "@gateway/platform";
import type { Clock } from "../clock.js";
import type { VideoMetrics } from "../metrics/video-metrics.js";
import type { VideoStorage } from "../storage/video-storage.js";
import type { OpenAIVideosClient } from "../vendor/openai-videos-client.js";

export interface WorkerDependencies {
  pool: SqlPool;
  clock: Clock;
  catalogue: CatalogueHolder;
  storage: VideoStorage;
  vendor: OpenAIVideosClient;
  usage: UsagePublisher;
  // A failed task's submit-time reservation is released: failures are not billed.
  reservations: Pick<Reservations, "release">;
  logger: Logger;
  workerId: string;
  leaseMs: number;
  pollInitialMs: number;
  pollMaxMs: number;
  metrics: VideoMetrics;
}
