// fetch against the console's own origin: the session cookie rides along, and every state
// change carries the session's CSRF token.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    // Every reason a change was refused for (the catalogue names them all).
    readonly problems: string[] = [],
  ) {
    super(message);
  }
}

let csrfToken = "";
let onUnauthorized: () => void = () => {};

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** What to do when the server says the session is gone (the app sends the user to sign-in). */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/** `/api/...?query` with empty values left out. */
export function apiPath(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function errorOf(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as {
    error?: { code?: string; message?: string; problems?: string[] };
  } | null;
  return new ApiError(
    response.status,
    body?.error?.code ?? `http_${response.status}`,
    body?.error?.message ?? response.statusText,
    body?.error?.problems ?? [],
  );
}

async function call<T>(method: string, path: string, body?: unknown, quiet401 = false): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 401 && !quiet401) onUnauthorized();
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const api = {
  get: <T>(path: string) => call<T>("GET", path),
  /** A GET whose 401 is an answer ("not signed in"), not a reason to redirect. */
  probe: <T>(path: string) => call<T>("GET", path, undefined, true),
  post: <T>(path: string, body?: unknown) => call<T>("POST", path, body),
  put: <T>(path: string, body: unknown) => call<T>("PUT", path, body),
  delete: <T>(path: string) => call<T>("DELETE", path),
};
