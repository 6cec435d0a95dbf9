import { type Logger, natsNames } from "@gateway/platform";
import { CatalogueChanged } from "@gateway/proto/events/v1/events";
import type { NatsConnection, Subscription } from "nats";
import { Catalogue, type CatalogueSources } from "../catalogue.js";
import type { CatalogueHolder } from "../catalogue-holder.js";
import type { CatalogueFile } from "../catalogue-schema.js";
import type { CatalogueStore } from "./catalogue-store.js";

/** Tells every router, video and ledger that revision `revision` is committed (ledger copies the groups). */
export async function announceCatalogue(
  nats: NatsConnection,
  namespace: string,
  revision: number,
  data: CatalogueFile,
): Promise<void> {
  const groups = Object.entries(data.groups).map(([name, group]) => ({
    name,
    description: group.description,
    multiplierBasisPoints: group.multiplier_basis_points,
  }));
  nats.publish(natsNames(namespace).catalogueChangedSubject, CatalogueChanged.encode({ revision, groups }).finish());
  await nats.flush();
}

/**
 * Keeps a holder on the store's newest revision: at once when a `catalogue.changed` message
 * names a newer one, and on a timer in case a message was missed. Reloads run one at a time;
 * the swap is a single assignment, so a request keeps the catalogue it started with.
 */
export class CatalogueFollower {
  private running: Promise<void> | undefined;
  private again = false;
  private subscription: Subscription | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: CatalogueStore,
    private readonly holder: CatalogueHolder,
    private readonly sources: CatalogueSources,
    private readonly logger: Logger,
    private readonly onSwap: (catalogue: Catalogue) => void = () => undefined,
  ) {}

  start(nats: NatsConnection, namespace: string, pollMs: number): void {
    this.subscription = nats.subscribe(natsNames(namespace).catalogueChangedSubject, {
      callback: (error, message) => {
        if (error) return this.logger.error({ err: error }, "catalogue change subscription failed");
        try {
          const { revision } = CatalogueChanged.decode(message.data);
          if (revision > (this.holder.revision ?? 0)) void this.refresh();
        } catch (decodeError) {
          this.logger.warn({ err: decodeError }, "ignored a malformed catalogue change");
        }
      },
    });
    this.timer = setInterval(() => void this.refresh(), pollMs);
    this.timer.unref();
  }

  /** Loads the store's revision if it is newer than the one in force; concurrent calls share one load. */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.load().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        void this.refresh();
      }
    });
    return this.running;
  }

  private async load(): Promise<void> {
    try {
      if ((await this.store.revision()) <= (this.holder.revision ?? 0)) return;
      const stored = await this.store.load();
      if (!stored || stored.revision <= (this.holder.revision ?? 0)) return;
      const next = Catalogue.fromData(stored.data, this.sources);
      this.holder.swap(next, stored.revision);
      this.onSwap(next);
    } catch (error) {
      this.logger.error({ err: error }, "catalogue reload failed; the previous catalogue stays in force");
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.subscription?.unsubscribe();
  }
}
