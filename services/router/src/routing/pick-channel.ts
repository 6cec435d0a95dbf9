import type { Channel } from "@gateway/catalogue";

/** Lowest priority number first; among equals, a weighted random pick spreads the load. */
export function pickChannel(channels: readonly Channel[], random = Math.random): Channel | undefined {
  if (channels.length === 0) return undefined;
  const best = Math.min(...channels.map((channel) => channel.priority));
  const candidates = channels.filter((channel) => channel.priority === best);
  let ticket = random() * candidates.reduce((sum, channel) => sum + channel.weight, 0);
  for (const channel of candidates) {
    ticket -= channel.weight;
    if (ticket < 0) return channel;
  }
  return candidates.at(-1);
}

/** Every channel in the order attempts should try them: repeated weighted picks by priority. */
export function orderChannels(channels: readonly Channel[], random = Math.random): Channel[] {
  const remaining = [...channels];
  const order: Channel[] = [];
  for (let channel = pickChannel(remaining, random); channel; channel = pickChannel(remaining, random)) {
    order.push(channel);
    remaining.splice(remaining.indexOf(channel), 1);
  }
  return order;
}
