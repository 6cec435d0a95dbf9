-- When the usage event of a completed task was handed to durable publishing (JetStream or the
-- spool). Completed tasks without it are republished by the workers' usage sweep, so a crash
-- between completion and publish cannot lose the charge.
ALTER TABLE video.tasks ADD COLUMN usage_published_at timestamptz(3);

-- Tasks completed before this column existed were published by the code of the time.
UPDATE video.tasks SET usage_published_at = finished_at WHERE status = 'completed';

CREATE INDEX tasks_usage_unpublished_idx ON video.tasks (finished_at)
  WHERE status = 'completed' AND usage_published_at IS NULL;
