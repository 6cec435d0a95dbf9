import { parse, serialize } from "cookie";
import type { Request, Response } from "express";

/**
 * The session cookie: httpOnly, SameSite=Lax, and outside development Secure with the
 * `__Host-` prefix (browsers then refuse it from plain HTTP, from a subdomain or for another path).
 */
export class SessionCookie {
  readonly name: string;

  constructor(
    private readonly secure: boolean,
    baseName = "console_session",
  ) {
    this.name = secure ? `__Host-${baseName}` : baseName;
  }

  read(request: Request): string | undefined {
    const header = request.headers.cookie;
    if (!header) return undefined;
    const value = parse(header)[this.name];
    return value && /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
  }

  set(response: Response, value: string, maxAgeSeconds: number): void {
    response.append("set-cookie", this.serialize(value, maxAgeSeconds));
  }

  clear(response: Response): void {
    response.append("set-cookie", this.serialize("", 0));
  }

  private serialize(value: string, maxAgeSeconds: number): string {
    return serialize(this.name, value, {
      httpOnly: true,
      sameSite: "lax",
      secure: this.secure,
      path: "/",
      maxAge: maxAgeSeconds,
    });
  }
}
