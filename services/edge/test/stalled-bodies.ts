import { connect, type Socket } from "node:net";
import { scrapeMetrics } from "@gateway/stack";

/** A request whose body the client declares in full, sends part of, and then stops sending. */
export interface StalledBody {
  socket: Socket;
  // The status line's code once edge answers (0 if the connection ends without one), and when.
  answer: Promise<{ status: number; afterMs: number }>;
}

/**
 * Opens a raw connection to edge, sends a POST declaring `declaredBytes` of body, then
 * `sentBytes` of it (`prefix` first, then filler), and leaves it unfinished.
 */
export function stallBody(
  baseUrl: string,
  path: string,
  options: { apiKey: string; contentType: string; declaredBytes: number; sentBytes: number; prefix?: string },
): StalledBody {
  const url = new URL(`${baseUrl}${path}`);
  const socket = connect(Number(url.port), url.hostname);
  socket.on("error", () => {});
  const startedAt = Date.now();
  const head =
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${options.apiKey}\r\n` +
    `Content-Type: ${options.contentType}\r\nContent-Length: ${options.declaredBytes}\r\n\r\n`;
  const prefix = Buffer.from(options.prefix ?? "");
  socket.write(head);
  socket.write(Buffer.concat([prefix, Buffer.alloc(Math.max(0, options.sentBytes - prefix.length), 0x20)]));
  const answer = new Promise<{ status: number; afterMs: number }>((resolve) => {
    let received = "";
    const settle = () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      resolve({ status, afterMs: Date.now() - startedAt });
    };
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (/^HTTP\/1\.1 \d{3}/.test(received)) settle();
    });
    socket.on("close", settle);
  });
  return { socket, answer };
}

/** What edge's body budget holds now (every request it counts must still be open). */
export async function bodyBudgetInUse(metricsUrl: string): Promise<number> {
  const samples = await scrapeMetrics(metricsUrl);
  return samples.find(({ name }) => name === "gateway_body_budget_in_use_bytes")?.value ?? Number.NaN;
}
