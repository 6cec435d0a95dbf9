/** One sample of a Prometheus text exposition: `name{label="value",…} value`. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the sample lines of Prometheus text format (comments and blank lines skipped). */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const line of text.split("\n")) {
    const match = sampleLine.exec(line);
    if (!match || line.startsWith("#")) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? "").matchAll(labelPair)) {
      labels[name!] = value!.replace(/\\(.)/g, (_, escaped: string) => (escaped === "n" ? "\n" : escaped));
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Scrapes one `/metrics` URL. */
export async function scrapeMetrics(url: string): Promise<MetricSample[]> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return parsePrometheusText(await response.text());
}

/** The sum of every sample named `name` whose labels include `labels`; undefined when none matches. */
export function sumOf(samples: readonly MetricSample[], name: string, labels: Record<string, string> = {}) {
  const matching = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  return matching.length === 0 ? undefined : matching.reduce((sum, sample) => sum + sample.value, 0);
}
