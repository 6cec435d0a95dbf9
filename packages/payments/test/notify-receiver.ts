import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedNotification {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface NotifyReceiver {
  url: string;
  received: ReceivedNotification[];
  /** Resolves once `count` notifications for the order arrived (the order number appears in Alipay's form only, so WeChat Pay's are matched by path). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedNotification[]>;
  /** The answer for the next notification to `path`: a merchant that fails once makes the provider retry. */
  failNext(path: string): void;
  close(): Promise<void>;
}

/** A merchant's notify_url: records each notification raw and acknowledges it the way each provider wants. */
export async function startNotifyReceiver(): Promise<NotifyReceiver> {
  const received: ReceivedNotification[] = [];
  const failing = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      if (failing.delete(path)) {
        response.writeHead(500, { "content-type": "application/json" }).end('{"code":"FAIL","message":"失败"}');
      } else if (path.startsWith("/alipay/")) response.end("success");
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter((notification) => notification.path === path);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`${matching.length} of ${count} notifications reached ${path}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    failNext: (path) => failing.add(path),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
