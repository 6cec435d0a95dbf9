import { chooseServerSource, dockerReachable, startContainerServers } from "./test-servers.js";

/**
 * Vitest's global setup: starts the shared servers in containers where Docker is reachable
 * and hands their URLs to every test file through `TEST_*_URL` (read by `testServers`),
 * before any test worker starts; otherwise the local servers are used as they are.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const source = chooseServerSource(process.env, await dockerReachable());
  if (source.kind === "local") {
    console.log(`test servers: local (${source.reason})`);
    return undefined;
  }
  const servers = await startContainerServers();
  Object.assign(process.env, servers.urls);
  console.log(`test servers: containers (${Object.values(servers.urls).join(", ")})`);
  return servers.stop;
}
