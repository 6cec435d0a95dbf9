import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort } from "./redis-server.js";

const run = promisify(execFile);
const binaries = process.env.POSTGRES_BIN_DIR ?? "/usr/lib/postgresql/15/bin";
// Postgres refuses to run as root: as root, the cluster belongs to the `postgres` OS user.
const clusterUser = "postgres";

/** Runs a Postgres binary as the cluster's owner (ourselves unless we are root). */
function runAsOwner(binary: string, args: string[]) {
  const asRoot = userInfo().uid === 0;
  const [command, commandArgs] = asRoot
    ? ["runuser", ["-u", clusterUser, "--", join(binaries, binary), ...args]]
    : [join(binaries, binary), args];
  return run(command, commandArgs as string[], { timeout: 60_000 });
}

/**
 * A Postgres cluster of the test's own (initdb into a temporary directory, a free port), which
 * the test may stop and start again with its data, without touching the machine's server.
 */
export class TestPostgres {
  private readonly directory = mkdtempSync(join(tmpdir(), "gw-postgres-"));

  private constructor(readonly port: number) {}

  static async start(): Promise<TestPostgres> {
    const postgres = new TestPostgres(await freePort());
    if (userInfo().uid === 0) {
      const { uid, gid } = await ownerIds();
      chownSync(postgres.directory, uid, gid);
    }
    await runAsOwner("initdb", ["-D", postgres.dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8"]);
    await postgres.resume();
    return postgres;
  }

  private get dataDirectory(): string {
    return join(this.directory, "data");
  }

  /** The maintenance database, which `createTemporaryDatabase` takes as its admin URL. */
  get url(): string {
    return `postgresql://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async resume(): Promise<void> {
    const options = `-p ${this.port} -k ${this.directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await runAsOwner("pg_ctl", [
      "-D",
      this.dataDirectory,
      "-o",
      options,
      "-l",
      join(this.directory, "log"),
      "-w",
      "start",
    ]);
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    await client.end();
  }

  /** Stops at once, as a crash would: no checkpoint, connections cut. */
  async stop(): Promise<void> {
    await runAsOwner("pg_ctl", ["-D", this.dataDirectory, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
  }

  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

async function ownerIds(): Promise<{ uid: number; gid: number }> {
  const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
    run("id", ["-u", clusterUser]),
    run("id", ["-g", clusterUser]),
  ]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
