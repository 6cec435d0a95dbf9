import type { Catalogue, CatalogueHolder } from "@gateway/catalogue";
import type { Logger } from "@gateway/platform";
import {
  type ChannelDisabler,
  type DisabledKey,
  InMemoryChannelDisabler,
  type KeyDisablement,
} from "../routing/channel-disabler.js";
import { enabledKeys, servingChannels } from "../routing/channel-keys.js";
import type { CatalogueAdmin } from "./catalogue-admin.js";

/**
 * Refused keys as this router saw them (in memory, read by every attempt), and a channel whose
 * every key the vendor refused disabled in the catalogue store as well: every router stops
 * trying it, `gw channel list` shows the vendor's reason, the audit names "router", and
 * `gw channel enable` brings it back with its keys enabled again.
 */
export class StoreChannelDisabler implements ChannelDisabler {
  private readonly memory = new InMemoryChannelDisabler();
  private seen: Catalogue;

  constructor(
    private readonly catalogue: CatalogueHolder,
    private readonly admin: CatalogueAdmin,
    private readonly logger: Logger,
  ) {
    this.seen = catalogue.current;
  }

  disablement(channel: string, keyId: string): KeyDisablement | undefined {
    return this.memory.disablement(channel, keyId);
  }

  enable(channel: string, keyId: string): void {
    this.memory.enable(channel, keyId);
  }

  disabledKeys(): Iterable<DisabledKey> {
    return this.memory.disabledKeys();
  }

  disable(channel: string, keyId: string, disablement: KeyDisablement): void {
    this.memory.disable(channel, keyId, disablement);
    const current = this.catalogue.current;
    const served = servingChannels(current.all()).find((candidate) => candidate.name === channel);
    if (!served || enabledKeys(served, this.memory).length > 0 || current.source.channels[channel]?.disabled) return;
    const words = `every key refused by the vendor (${disablement.reason}, HTTP ${disablement.vendorStatus}): ${disablement.vendorMessage}`;
    this.admin
      .change("router", { action: "channel.disable", name: channel, reason: words.slice(0, 500) })
      .catch((error: unknown) =>
        this.logger.error({ err: error, channel }, "could not disable the channel in the catalogue store"),
      );
  }

  /** Called on each catalogue swap: a channel an operator enabled again starts with every key enabled. */
  catalogueSwapped(next: Catalogue): void {
    const reenabled = (channel: string) =>
      this.seen.source.channels[channel]?.disabled === true && !next.source.channels[channel]?.disabled;
    for (const { channel, keyId } of [...this.memory.disabledKeys()]) {
      if (reenabled(channel)) this.memory.enable(channel, keyId);
    }
    this.seen = next;
  }
}
