import { isIPv6 } from "node:net";
import type { Request } from "express";

/** Where a client reached edge, for the absolute links edge hands out (image URLs, video_url). */
export type PublicBaseUrl = (request: Request) => string;

/** `proto://host[:port]` from a trusted proxy's headers, or nothing if they are not a bare origin. */
function forwardedOrigin(request: Request): string | undefined {
  const trust = request.app.get("trust proxy fn") as (address: string | undefined, hop: number) => boolean;
  const host = request.get("x-forwarded-host")?.split(",")[0]?.trim();
  if (!host || !trust(request.socket.remoteAddress, 0)) return undefined;
  try {
    // request.protocol reads X-Forwarded-Proto only from a trusted peer.
    const url = new URL(`${request.protocol}://${host}`);
    const bare = url.pathname === "/" && !url.username && !url.password && !url.search && !url.hash;
    return bare && url.host === host.toLowerCase() ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** The address and port this connection reached edge at: edge's own, never something a client says. */
function listenOrigin(request: Request): string {
  const address = (request.socket.localAddress ?? "127.0.0.1").replace(/^::ffff:(?=\d+\.)/, "");
  return `http://${isIPv6(address) ? `[${address}]` : address}:${request.socket.localPort}`;
}

/**
 * PUBLIC_BASE_URL when set; else the ingress's origin from X-Forwarded-Host/-Proto when the
 * peer is a trusted proxy (GATEWAY_TRUSTED_PROXIES); else edge's own listen address. Never the
 * request's Host header: a client could point the links it is given, and shares, anywhere.
 */
export function publicBaseUrl(configured: string | undefined): PublicBaseUrl {
  const fixed = configured?.replace(/\/+$/, "");
  return (request) => fixed ?? forwardedOrigin(request) ?? listenOrigin(request);
}
