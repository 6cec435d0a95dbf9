import { createLogger, createRedis, GatewayError, type Redis } from "@gateway/platform";
import { testServers } from "./test-resources.js";

/** A connected client of the test Redis (or another URL's), for tests of code that takes one. */
export async function connectTestRedis(url = testServers.redisUrl): Promise<Redis> {
  const redis = createRedis(url, createLogger("test", "silent"), "the test fails");
  for (let tries = 0; !redis.isReady && tries < 200; tries += 1) await new Promise((done) => setTimeout(done, 10));
  return redis;
}

/** The GatewayError a promise rejects with; throws when it resolves or rejects with anything else. */
export async function gatewayErrorOf(promise: Promise<unknown>): Promise<GatewayError> {
  const outcome = await promise.then(
    () => new Error("expected a GatewayError, but the promise resolved"),
    (thrown: unknown) => thrown,
  );
  if (outcome instanceof GatewayError) return outcome;
  throw outcome;
}
