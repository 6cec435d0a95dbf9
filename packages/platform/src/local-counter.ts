import type { Attributes, Meter, MetricOptions } from "@opentelemetry/api";

interface Series {
  readonly attributes: Attributes;
  value: number;
}

// One level per attribute as the call site writes them: its name, then its value. Looking up a
// label set costs two Map gets per label on short strings, where one key built from the whole
// set (JSON or concatenated) costs its building and the hashing of a long string.
class Node {
  readonly next = new Map<string, Map<unknown, Node>>();
  series: Series | undefined;
}

/**
 * A counter for the request path. OpenTelemetry JS has no bound instruments: a synchronous
 * counter's `add` sorts and JSON-encodes its attributes once per reader on every call. This one
 * keeps each label set's total here and reports the totals through an observable instrument of
 * the same name, description and unit when a reader collects, so the exported series (and the
 * Prometheus text) are the ones the synchronous counter gave.
 */
export class LocalCounter {
  private readonly root = new Node();
  // Keyed by the attributes sorted, as the SDK keys them: one series per label set even when
  // two call sites write its keys in different orders.
  private readonly byLabels = new Map<string, Series>();

  constructor(
    meter: Meter,
    name: string,
    options: MetricOptions,
    private readonly monotonic: boolean,
  ) {
    const observable = monotonic
      ? meter.createObservableCounter(name, options)
      : meter.createObservableUpDownCounter(name, options);
    observable.addCallback((result) => {
      for (const series of this.byLabels.values()) result.observe(series.value, series.attributes);
    });
  }

  add(value: number, attributes: Attributes = {}): void {
    // The synchronous counter drops a negative increment too.
    if (this.monotonic && value < 0) return;
    let node = this.root;
    for (const name in attributes) {
      let byValue = node.next.get(name);
      if (!byValue) {
        byValue = new Map();
        node.next.set(name, byValue);
      }
      const raw = attributes[name];
      // An array is a new object per call: keyed by its content, not its identity.
      const label = Array.isArray(raw) ? JSON.stringify(raw) : raw;
      let child = byValue.get(label);
      if (!child) {
        child = new Node();
        byValue.set(label, child);
      }
      node = child;
    }
    node.series ??= this.seriesFor(attributes);
    node.series.value += value;
  }

  private seriesFor(attributes: Attributes): Series {
    const labels = JSON.stringify(
      Object.keys(attributes)
        .sort()
        .map((key) => [key, attributes[key]]),
    );
    let series = this.byLabels.get(labels);
    if (!series) {
      // A copy: call sites build their attributes per call and may reuse the object.
      series = { attributes: { ...attributes }, value: 0 };
      this.byLabels.set(labels, series);
    }
    return series;
  }
}

/** A monotonic counter whose `add` costs a Map lookup (see LocalCounter). */
export function localCounter(meter: Meter, name: string, options: MetricOptions = {}): LocalCounter {
  return new LocalCounter(meter, name, options, true);
}

/** An up-down counter whose `add` costs a Map lookup (see LocalCounter). */
export function localUpDownCounter(meter: Meter, name: string, options: MetricOptions = {}): LocalCounter {
  return new LocalCounter(meter, name, options, false);
}
