import type { Channel, ChannelKey } from "@gateway/catalogue";
import type { ChannelDisabler } from "./channel-disabler.js";

/** A channel with the key one attempt calls it with. */
export type KeyedChannel = Channel & { key: ChannelKey };

/** The channel's keys the vendor has not refused. */
export function enabledKeys(channel: Channel, disabler: ChannelDisabler): ChannelKey[] {
  return channel.keys.filter((key) => !disabler.disablement(channel.name, key.id));
}

/** Takes a channel's enabled keys in turn, so each carries an even share of its traffic. */
export class KeyRotation {
  private readonly turns = new Map<string, number>();

  constructor(private readonly disabler: ChannelDisabler) {}

  /** The channel with its next enabled key; undefined when the vendor refused them all. */
  next(channel: Channel): KeyedChannel | undefined {
    const keys = enabledKeys(channel, this.disabler);
    if (keys.length === 0) return undefined;
    const turn = this.turns.get(channel.name) ?? 0;
    this.turns.set(channel.name, (turn + 1) % Number.MAX_SAFE_INTEGER);
    return { ...channel, key: keys[turn % keys.length]! };
  }

  hasEnabledKey(channel: Channel): boolean {
    return enabledKeys(channel, this.disabler).length > 0;
  }
}

/** Every channel that serves some model, once each (models share their channels). */
export function servingChannels(models: Iterable<{ channels: readonly Channel[] }>): Channel[] {
  const byName = new Map<string, Channel>();
  for (const model of models) for (const channel of model.channels) byName.set(channel.name, channel);
  return [...byName.values()];
}

/** Each serving or held channel's key count and how many of its keys are disabled, for metrics. */
export function channelKeyStates(
  catalogue: { all(): Iterable<{ channels: readonly Channel[] }>; heldChannels?: ReadonlyMap<string, Channel> },
  disabler: ChannelDisabler,
) {
  // A channel disabled in the catalogue for its refused keys still counts, as it did before.
  const held = { channels: [...(catalogue.heldChannels?.values() ?? [])] };
  return servingChannels([...catalogue.all(), held]).map((channel) => ({
    channel: channel.name,
    keys: channel.keys.length,
    disabledKeys: channel.keys.length - enabledKeys(channel, disabler).length,
  }));
}
