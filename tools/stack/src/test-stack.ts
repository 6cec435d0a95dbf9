import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadUsageDefinition, natsConnectOptions } from "@gateway/platform";
import { connect } from "nats";
import { repoRoot } from "./repo-paths.js";
import type { ServiceProcess } from "./service-process.js";
import {
  migrateCatalogue,
  migrateLedger,
  migrateVideo,
  type RunningStack,
  type StackOptions,
  startStack,
} from "./stack.js";
import { createTemporaryDatabase, testServers, testServiceTokenSecret, uniqueNamespace } from "./test-resources.js";

export interface TestStack extends RunningStack {
  // A test stack always runs the simulator, production mode too (tests check it is never called).
  simulatorUrl: string;
  processes: RunningStack["processes"] & { simulator: ServiceProcess };
  namespace: string;
  databaseUrl: string;
  redisUrl: string;
  adminToken: string;
  /** Stops every process, drops the database and deletes the run's NATS stream. */
  teardown(): Promise<void>;
}

// A bucket and key pair for the simulator's S3 and for the video service that uses it.
function simulatedS3Env(): NodeJS.ProcessEnv {
  const accessKeyId = `test-${randomBytes(8).toString("hex")}`;
  const secret = randomBytes(24).toString("hex");
  return {
    SIMULATOR_S3_BUCKETS: "gateway-videos",
    SIMULATOR_S3_ACCESS_KEY_ID: accessKeyId,
    SIMULATOR_S3_SECRET_ACCESS_KEY: secret,
    VIDEO_S3_BUCKET: "gateway-videos",
    VIDEO_S3_ACCESS_KEY_ID: accessKeyId,
    VIDEO_S3_SECRET_ACCESS_KEY: secret,
  };
}

/**
 * A whole gateway for one test file: its own database, namespace and ports. With
 * `VIDEO_STORAGE: "s3"` and no `VIDEO_S3_ENDPOINT`, videos are stored in the simulator's S3.
 */
export async function startTestStack(
  options: Partial<
    Pick<
      StackOptions,
      "env" | "serviceEnv" | "entries" | "echo" | "redisUrl" | "natsUrl" | "namespace" | "console" | "replicas"
    >
  > & {
    // A Postgres of the test's own (its maintenance database's URL), for tests that stop it.
    postgresUrl?: string;
  } = {},
): Promise<TestStack> {
  const { postgresUrl, ...stackOptions } = options;
  const database = await createTemporaryDatabase(postgresUrl);
  const namespace = options.namespace ?? uniqueNamespace();
  const adminToken = randomBytes(24).toString("hex");
  try {
    await Promise.all([migrateLedger(database.url), migrateVideo(database.url), migrateCatalogue(database.url)]);
    const videoDirectory = `${repoRoot}.gateway/test-videos/${namespace}`;
    const videoS3OnSimulator = options.env?.VIDEO_STORAGE === "s3" && !options.env.VIDEO_S3_ENDPOINT;
    const stack = await startStack({
      databaseUrl: database.url,
      redisUrl: testServers.redisUrl,
      natsUrl: testServers.natsUrl,
      namespace,
      adminToken,
      ...stackOptions,
      // Test mode lets tests move the video service's clock; each run stores its videos apart.
      env: {
        VIDEO_TEST_MODE: "1",
        // A test stack stops at once, production mode too, and well before stop()'s SIGKILL.
        SHUTDOWN_READINESS_DELAY_MS: "0",
        SHUTDOWN_GRACE_MS: "5000",
        GATEWAY_SERVICE_TOKEN_SECRET: testServiceTokenSecret,
        VIDEO_STORAGE_DIR: videoDirectory,
        ...(videoS3OnSimulator && simulatedS3Env()),
        ...options.env,
      },
      videoS3OnSimulator,
    });
    const { simulatorUrl, processes } = stack;
    if (!simulatorUrl || !processes.simulator) throw new Error("a test stack runs the simulator");
    return {
      ...stack,
      simulatorUrl,
      processes: processes as TestStack["processes"],
      namespace,
      databaseUrl: database.url,
      redisUrl: options.redisUrl ?? testServers.redisUrl,
      adminToken,
      async teardown() {
        await stack.stop();
        await database.drop();
        await deleteStream(namespace, options.natsUrl);
        rmSync(`${repoRoot}.gateway/spool/${namespace}`, { recursive: true, force: true });
        rmSync(`${repoRoot}.gateway/spool/${namespace}-video`, { recursive: true, force: true });
        rmSync(videoDirectory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

export async function deleteStream(namespace: string, natsUrl = testServers.natsUrl): Promise<void> {
  const nats = await connect(natsConnectOptions({ NATS_URL: natsUrl }));
  try {
    const manager = await nats.jetstreamManager();
    const usage = loadUsageDefinition(namespace);
    // One never created is refused: nothing to delete.
    await Promise.allSettled([usage, usage.request_logs].map(({ stream }) => manager.streams.delete(stream.name)));
  } finally {
    await nats.close();
  }
}
