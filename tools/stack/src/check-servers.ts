import { connect } from "nats";
import pg from "pg";
import { createClient } from "redis";

export interface ServerUrls {
  postgresAdminUrl: string;
  redisUrl: string;
  natsUrl: string;
}

// What to run on a development machine when a server is down (see docs/operations.md).
const howToStart = {
  Postgres: "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
  Redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
  NATS: "start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log",
};

async function reachable(check: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Lists each unreachable server with the reason and the command that starts it. */
export async function unreachableServers(urls: ServerUrls): Promise<string[]> {
  const checks = {
    Postgres: async () => {
      const client = new pg.Client({ connectionString: urls.postgresAdminUrl, connectionTimeoutMillis: 3_000 });
      await client.connect();
      await client.end();
    },
    Redis: async () => {
      const client = createClient({ url: urls.redisUrl, socket: { connectTimeout: 3_000, reconnectStrategy: false } });
      client.on("error", () => {});
      await client.connect();
      await client.ping();
      await client.quit();
    },
    NATS: async () => {
      const nats = await connect({ servers: urls.natsUrl, timeout: 3_000, reconnect: false });
      await (await nats.jetstreamManager()).getAccountInfo();
      await nats.close();
    },
  };
  const problems: string[] = [];
  for (const [name, check] of Object.entries(checks)) {
    const reason = await reachable(check);
    if (reason) {
      problems.push(
        `${name} is unreachable (${reason}). Start it with:\n    ${howToStart[name as keyof typeof howToStart]}`,
      );
    }
  }
  return problems;
}

/** Creates the gateway's database on first start. */
export async function ensureDatabase(databaseUrl: string, postgresAdminUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!/^[a-z_][a-z0-9_]*$/.test(name))
    throw new Error(`database name ${name} must be lowercase letters, digits and _`);
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (existing.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
