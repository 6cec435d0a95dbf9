import { once } from "node:events";
import type { Response } from "express";

// RFC 4180 quoting; a leading =, +, - or @ is defused so a spreadsheet never runs a model name as a formula.
export function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@]/.test(text)) text = `'${text}`;
  return /[",\r\n']/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Writes a CSV download page by page (`next` answers rows and the next cursor, "" at the end), minding back-pressure. */
export async function streamCsv<Row extends Record<string, unknown>>(
  response: Response,
  filename: string,
  columns: readonly (keyof Row & string)[],
  next: (cursor: string) => Promise<{ rows: Row[]; nextCursor: string }>,
): Promise<void> {
  let page = await next("");
  response.status(200);
  response.setHeader("content-type", "text/csv; charset=utf-8");
  response.setHeader("content-disposition", `attachment; filename="${filename}"`);
  response.write(`${columns.join(",")}\r\n`);
  for (;;) {
    const lines = page.rows.map((row) => `${columns.map((column) => csvCell(row[column])).join(",")}\r\n`);
    if (lines.length > 0 && !response.write(lines.join(""))) await once(response, "drain");
    if (!page.nextCursor || response.destroyed) break;
    page = await next(page.nextCursor);
  }
  response.end();
}
