import type { CatalogueHolder, CatalogueModel, Channel, VideoRules } from "@gateway/catalogue";
import { invalidRequest, serverError } from "@gateway/platform";
import { ENDPOINT } from "./task-rules.js";

export interface VideoModel {
  model: CatalogueModel;
  rules: VideoRules;
  channel: Channel;
}

/**
 * The catalogue entry a key's group may use for video: unknown and forbidden models look the
 * same (404 model_not_found), a model of another kind is the client's mistake (400).
 */
export function findVideoModel(catalogue: CatalogueHolder, id: string, group: string): VideoModel {
  const model = catalogue.current.find(id, group);
  if (!model) throw catalogue.current.notFoundError(id, group);
  if (!model.endpoints.includes(ENDPOINT)) {
    throw invalidRequest(`The model \`${model.id}\` does not serve ${ENDPOINT}.`, "model", "unsupported_model");
  }
  const channel = model.channels[0];
  if (!model.video || !channel) throw serverError(`The model \`${model.id}\` has no video settings or channel.`);
  return { model, rules: model.video, channel };
}

/** The channel a task was started on, if the catalogue still has it; otherwise the model's first. */
export function channelOf(video: VideoModel, name: string): Channel {
  return video.model.channels.find((channel) => channel.name === name) ?? video.channel;
}
