import { jsonObjectAt } from "./json.js";

/** `[sim:tool=NAME]` or `[sim:tool=NAME {"json":"args"}]`: call exactly that tool, with those arguments. */
export interface ToolDirective {
  name: string;
  /** Absent when the directive gives none: the arguments are then sampled from the tool's schema. */
  arguments?: Record<string, unknown>;
}

interface FoundDirective {
  directive: ToolDirective;
  start: number;
  end: number;
}

const marker = "[sim:tool=";
const namePattern = /[A-Za-z0-9_.:-]{1,128}/y;
// An agent's prompt can be tens of kilobytes (Claude Code puts long system reminders before the
// user's words), so the directive is looked for everywhere, but no argument object is read past this.
const longestArguments = 16_384;
// Malformed markers each cost a scan, so only the first few count.
const examinedMarkers = 8;

/** The first well-formed tool directive anywhere in the text; malformed ones are ignored. */
export function findToolDirective(text: string): ToolDirective | undefined {
  return locate(text)?.directive;
}

/** Removes tool directives, so they never leak into a simulated answer. */
export function stripToolDirectives(text: string): string {
  let rest = text;
  for (let found = locate(rest); found; found = locate(rest, found.start)) {
    rest = `${rest.slice(0, found.start)} ${rest.slice(found.end)}`;
  }
  return rest;
}

function locate(text: string, from = 0): FoundDirective | undefined {
  let start = text.indexOf(marker, from);
  for (let examined = 0; start >= 0 && examined < examinedMarkers; examined++) {
    const found = readDirective(text, start);
    if (found) return found;
    start = text.indexOf(marker, start + 1);
  }
  return undefined;
}

function readDirective(text: string, start: number): FoundDirective | undefined {
  namePattern.lastIndex = start + marker.length;
  const name = namePattern.exec(text)?.[0];
  if (!name) return undefined;
  let cursor = skipSpaces(text, namePattern.lastIndex);
  if (text[cursor] === "]") return { directive: { name }, start, end: cursor + 1 };
  const object = jsonObjectAt(text, cursor, longestArguments);
  if (!object) return undefined;
  cursor = skipSpaces(text, object.end);
  if (text[cursor] !== "]") return undefined;
  return { directive: { name, arguments: object.value }, start, end: cursor + 1 };
}

function skipSpaces(text: string, from: number): number {
  let cursor = from;
  while (cursor < text.length && /\s/.test(text[cursor]!)) cursor++;
  return cursor;
}
