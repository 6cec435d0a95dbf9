/** One form field or uploaded file of a multipart/form-data body. */
export interface FormPart {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

export interface FormBody {
  /** Text fields; a repeated name (timestamp_granularities[]) keeps every value. */
  fields: Map<string, string[]>;
  files: Map<string, FormPart[]>;
}

const headerEnd = Buffer.from("\r\n\r\n");

function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType?.toLowerCase().startsWith("multipart/form-data")) return undefined;
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function parsePart(raw: Buffer): FormPart | undefined {
  const split = raw.indexOf(headerEnd);
  if (split < 0) return undefined;
  const headers = raw.subarray(0, split).toString("utf8");
  const disposition = /content-disposition:[^\r\n]*/i.exec(headers)?.[0] ?? "";
  const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) return undefined;
  return {
    name,
    filename: /\bfilename="([^"]*)"/i.exec(disposition)?.[1],
    contentType: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim(),
    data: raw.subarray(split + headerEnd.length),
  };
}

/**
 * Parses a whole multipart/form-data body, as the simulator holds bodies in memory anyway;
 * undefined when the body is not multipart or is malformed.
 */
export function parseMultipart(body: Buffer, contentType: string | undefined): FormBody | undefined {
  const boundary = boundaryOf(contentType);
  if (!boundary) return undefined;
  const delimiter = Buffer.from(`--${boundary}`);
  const form: FormBody = { fields: new Map(), files: new Map() };
  let start = body.indexOf(delimiter);
  if (start < 0) return undefined;
  for (;;) {
    const partStart = start + delimiter.length;
    if (body.subarray(partStart, partStart + 2).toString() === "--") return form;
    const next = body.indexOf(Buffer.from(`\r\n--${boundary}`), partStart);
    if (next < 0) return undefined;
    const part = parsePart(body.subarray(partStart + 2, next));
    if (!part) return undefined;
    if (part.filename === undefined) {
      form.fields.set(part.name, [...(form.fields.get(part.name) ?? []), part.data.toString("utf8")]);
    } else {
      form.files.set(part.name, [...(form.files.get(part.name) ?? []), part]);
    }
    start = next + 2;
  }
}

/** What the request log shows of a form: its fields, and each file's name and size instead of its bytes. */
export function describeForm(form: FormBody): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  for (const [name, values] of form.fields) described[name] = values.length === 1 ? values[0] : values;
  for (const [name, files] of form.files) {
    described[name] = files.map((file) => ({
      filename: file.filename,
      content_type: file.contentType,
      bytes: file.data.length,
    }));
  }
  return described;
}
