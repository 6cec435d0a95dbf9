import { setTimeout as sleep } from "node:timers/promises";
import { CookieJar } from "tough-cookie";

/**
 * A scripted browser for the console's tests: a cookie jar, redirects followed hop by hop (so
 * every Set-Cookie on the way is kept, as a browser does) and HTML forms submitted like a click.
 */
export class Browser {
  readonly jar = new CookieJar();
  csrfToken = "";

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookies = await this.jar.getCookieString(url);
    if (cookies) headers.set("cookie", cookies);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) await this.jar.setCookie(cookie, url);
    return response;
  }

  /** Follows redirects from `url` to the first page that is not one; answers it and its address. */
  async follow(url: string, init: RequestInit = {}): Promise<{ response: Response; url: string }> {
    let current = url;
    let response = await this.request(current, init);
    for (let hops = 0; response.status >= 300 && response.status < 400; hops += 1) {
      if (hops > 20) throw new Error(`too many redirects from ${url}`);
      const location = response.headers.get("location");
      if (!location) throw new Error(`redirect without a location from ${current}`);
      await response.body?.cancel();
      current = new URL(location, current).toString();
      response = await this.request(current);
    }
    return { response, url: current };
  }

  /** Submits the page's first form with its fields plus `values`, following the redirects after. */
  async submitForm(page: { html: string; url: string }, values: Record<string, string> = {}) {
    const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(page.html);
    if (!form) throw new Error(`no form on ${page.url}:\n${page.html.slice(0, 500)}`);
    const attribute = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`, "i").exec(tag)?.[1];
    const fields = new URLSearchParams();
    for (const [input] of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input, "name");
      if (name && !(name in values)) fields.set(name, decodeEntities(attribute(input, "value") ?? ""));
    }
    for (const [name, value] of Object.entries(values)) fields.set(name, value);
    const action = new URL(decodeEntities(attribute(form[1]!, "action") ?? page.url), page.url).toString();
    return this.follow(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: fields.toString(),
    });
  }

  /** A JSON call to the console's API with this browser's cookies and, for state changes, its CSRF token. */
  async api(url: string, method = "GET", body?: unknown, headers: Record<string, string> = {}) {
    const response = await this.request(url, {
      method,
      headers: {
        ...(body !== undefined && { "content-type": "application/json" }),
        ...(method !== "GET" && this.csrfToken && { "x-csrf-token": this.csrfToken }),
        ...headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    // biome-ignore lint/suspicious/noExplicitAny: the tests' assertions check the answers' shape
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
  }
}

const entities: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&apos;": "'",
  "&#39;": "'",
};
const decodeEntities = (text: string) => text.replace(/&(?:amp|lt|gt|quot|apos|#39);/g, (entity) => entities[entity]!);

/** Signs in through the simulator's GitHub as `login`; answers the session the console then reports. */
export async function signInWithGithub(browser: Browser, consoleUrl: string, login: string, link = false) {
  const authorize = await browser.follow(`${consoleUrl}/api/auth/github${link ? "?link=1" : ""}`);
  const landed = await browser.submitForm({ html: await authorize.response.text(), url: authorize.url }, { login });
  await landed.response.body?.cancel();
  return { landedAt: landed.url, ...(await refreshSession(browser, consoleUrl)) };
}

/** Signs in through the local OpenID provider: its login form, then its consent form. */
export async function signInWithOidc(browser: Browser, consoleUrl: string, login: string, link = false) {
  const loginPage = await browser.follow(`${consoleUrl}/api/auth/oidc${link ? "?link=1" : ""}`);
  let page = await browser.submitForm(
    { html: await loginPage.response.text(), url: loginPage.url },
    { login, password: "any password" },
  );
  // The provider asks for consent the first time this client wants this person's claims.
  if (!page.url.startsWith(consoleUrl)) {
    page = await browser.submitForm({ html: await page.response.text(), url: page.url });
  }
  await page.response.body?.cancel();
  return { landedAt: page.url, ...(await refreshSession(browser, consoleUrl)) };
}

export async function refreshSession(browser: Browser, consoleUrl: string) {
  const session = await browser.api(`${consoleUrl}/api/session`);
  if (session.status === 200) browser.csrfToken = session.body.csrfToken;
  return { status: session.status, session: session.body };
}

/** Reads until `done` holds or the time is up, and answers the last reading either way. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(150);
  }
}
