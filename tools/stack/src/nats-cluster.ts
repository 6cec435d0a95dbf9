import { connect, type NatsConnection } from "nats";
import { TestNats, type TestNatsOptions } from "./nats-server.js";
import { freePort } from "./redis-server.js";

/** A stream by name, or one of its consumers. */
export type JetStreamAsset = string | { stream: string; consumer: string };

/**
 * A JetStream cluster of the test's own on private ports: `size` nodes routed to each other,
 * each with its own store, that the test may kill and restart one at a time.
 */
export class TestNatsCluster {
  private constructor(
    private readonly names: string[],
    readonly nodes: TestNats[],
    private readonly monitorPorts: number[],
    private readonly options: TestNatsOptions,
  ) {}

  /** Every node's URL, comma-separated (as NATS_URL takes them), with credentials when given. */
  url(credentials?: { user: string; password: string }): string {
    return this.nodes
      .map((node) => {
        if (!credentials) return node.url;
        const url = new URL(node.url);
        url.username = credentials.user;
        url.password = credentials.password;
        return url.toString().replace(/\/$/, "");
      })
      .join(",");
  }

  nameOf(node: TestNats): string {
    return this.names[this.nodes.indexOf(node)]!;
  }

  /**
   * The node leading a stream's replicas, or its consumer's (`{ stream, consumer }`), where
   * their writes are decided, and whether every follower has caught up, as the running nodes report.
   */
  async leaderOf(asset: JetStreamAsset): Promise<{ leader: TestNats | undefined; allCurrent: boolean }> {
    const { cluster } = await this.withConnection(async (connection) => {
      const manager = await connection.jetstreamManager({ timeout: 1_000 });
      return typeof asset === "string"
        ? manager.streams.info(asset)
        : manager.consumers.info(asset.stream, asset.consumer);
    });
    const replicas = cluster?.replicas ?? [];
    return {
      leader: this.nodes[this.names.indexOf(cluster?.leader ?? "")],
      allCurrent: replicas.length === this.nodes.length - 1 && replicas.every((peer) => peer.current),
    };
  }

  /** Asks the leader of a stream or consumer to hand over to another node (the cluster elects which). */
  async stepDown(asset: JetStreamAsset): Promise<void> {
    const subject =
      typeof asset === "string"
        ? `$JS.API.STREAM.LEADER.STEPDOWN.${asset}`
        : `$JS.API.CONSUMER.LEADER.STEPDOWN.${asset.stream}.${asset.consumer}`;
    await this.withConnection((connection) => connection.request(subject, undefined, { timeout: 2_000 }));
  }

  /** The names the clients connected to a node gave (services name their connection after themselves). */
  async clientsOf(node: TestNats): Promise<string[]> {
    const response = await fetch(`http://127.0.0.1:${this.monitorPorts[this.nodes.indexOf(node)]}/connz?limit=1024`);
    const { connections } = (await response.json()) as { connections: { name?: string }[] | null };
    return (connections ?? []).flatMap((connection) => (connection.name ? [connection.name] : []));
  }

  async remove(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.remove()));
  }

  private async withConnection<T>(work: (connection: NatsConnection) => Promise<T>): Promise<T> {
    const connection = await connect({ servers: this.url().split(","), timeout: 1_000, ...this.options.probe });
    try {
      return await work(connection);
    } finally {
      await connection.close();
    }
  }

  static async start(size: number, options: TestNatsOptions = {}): Promise<TestNatsCluster> {
    const ports = new Set<number>();
    while (ports.size < size * 3) ports.add(await freePort());
    const [clientPorts, routePorts, monitorPorts] = [0, 1, 2].map((group) =>
      [...ports].slice(group * size, (group + 1) * size),
    ) as [number[], number[], number[]];
    const name = `gw-test-${clientPorts[0]}`;
    const names = clientPorts.map((_, index) => `${name}-n${index + 1}`);
    const routes = routePorts.map((port) => `nats-route://127.0.0.1:${port}`);
    const nodes = clientPorts.map((port, index) =>
      TestNats.launch(port, {
        ...options,
        // JetStream in a cluster needs a server name per node; each routes to all (itself is skipped).
        config: [
          `server_name: ${names[index]}`,
          `http: "127.0.0.1:${monitorPorts[index]}"`,
          `cluster { name: ${name}, listen: "127.0.0.1:${routePorts[index]}", routes: ${JSON.stringify(routes)} }`,
          options.config ?? "",
        ].join("\n"),
      }),
    );
    const cluster = new TestNatsCluster(names, nodes, monitorPorts, options);
    try {
      // Electing the first meta leader takes a few seconds (more on a busy machine).
      await Promise.all(nodes.map((node) => node.ready(30_000)));
    } catch (error) {
      await cluster.remove();
      throw error;
    }
    return cluster;
  }
}

/** A three-node (or `size`-node) JetStream cluster, ready once every node knows its meta leader. */
export const startNatsCluster = (size = 3, options: TestNatsOptions = {}) => TestNatsCluster.start(size, options);
