import { existsSync } from "node:fs";
import { repoRoot } from "./repo-paths.js";

// Where scripts/ensure-tools.sh puts a Node 24 when the machine's Node is older.
const installedNode = `${repoRoot}.gateway/node/bin/node`;

/**
 * The Node every service runs on: GATEWAY_NODE if set, else the Node 24 the setup installed
 * (the images run Node 24, which spends a third to two thirds less CPU per request than Node 20
 * here), else the Node running this process. Tests and tools themselves run on the latter.
 */
export const serviceNode = process.env.GATEWAY_NODE || (existsSync(installedNode) ? installedNode : process.execPath);
