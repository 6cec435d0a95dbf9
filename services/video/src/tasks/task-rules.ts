import { randomUUID } from "node:crypto";

/** The spec: "A task id can be queried for 24 hours; after that it cannot be queried." */
export const TASK_LIFETIME_MS = 24 * 60 * 60 * 1000;

/** The spec's durations. */
export const DURATIONS = [5, 10, 15, 20] as const;

export const ENDPOINT = "/v1/videos/generations";

const taskIdPattern = /^task_[0-9a-f]{32}$/;

export const newTaskId = () => `task_${randomUUID().replaceAll("-", "")}`;

/** Whether a client-given id could be one of ours: anything else is unknown without a query. */
export const isTaskId = (id: string) => taskIdPattern.test(id);

export const storageKeyOf = (taskId: string) => `${taskId}.mp4`;
