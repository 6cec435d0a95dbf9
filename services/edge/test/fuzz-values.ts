import fc from "fast-check";

// Values a hostile or careless client puts in a request, for the fuzz suite's generators.

/** JSON text written into a body as is, for what JSON.stringify cannot produce (huge numbers, deep nesting, duplicates). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Like JSON.stringify, but writes RawJson values verbatim. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (!(item instanceof RawJson)) return item;
    raws.push(item.text);
    return `\u0001raw${raws.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001raw(\d+)\\u0001"/g, (_match, index: string) => raws[Number(index)]!);
}

/** Integers past int32, past 2^53, negative ones, and numbers JSON can write but no integer type holds. */
export const hugeNumber = fc.oneof(
  fc.constantFrom(2 ** 31, 2 ** 31 - 1, 2 ** 32, 2 ** 53, 2 ** 63, -(2 ** 31) - 1, 1e308, -0, 0.5),
  fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }),
  fc
    .constantFrom("1e400", "-1e400", "123456789012345678901234567890", "1.0e10", "0.0000000000000001")
    .map((text) => new RawJson(text)),
);

/** Arrays or objects nested past any sane depth limit. */
export const deepNesting = fc
  .tuple(fc.integer({ min: 60, max: 5_000 }), fc.boolean())
  .map(([depth, objects]) =>
    objects
      ? new RawJson(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)
      : new RawJson(`${"[".repeat(depth)}${"]".repeat(depth)}`),
  );

/** Text with NUL and other control characters, which Postgres text and many parsers refuse. */
export const controlText = fc
  .tuple(fc.string({ maxLength: 20 }), fc.constantFrom("\u0000", "\u0000\u0000", "\u0007", "\u001b[31m", "\r\n"))
  .map(([text, control]) => `${text}${control}${text}`);

/** Every kind of Unicode: astral planes, combining marks, lone surrogates, right-to-left text. */
export const unicodeText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.constantFrom("\ud800", "\udfff", "零一二三四五六七八九", "‮evil", "é", "🏳️‍🌈".repeat(50), "\ufeff"),
);

/** Strings long enough to overflow identifiers and echoes (up to 100 KB, to keep a run bounded). */
export const longText = fc
  .tuple(fc.integer({ min: 257, max: 100_000 }), fc.constantFrom("m", "é", "零", "-"))
  .map(([length, unit]) => unit.repeat(length));

/** A value of any JSON type, sometimes far too big or too deep. */
export const anyJson = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: hugeNumber },
  { weight: 1, arbitrary: deepNesting },
);

/** Any text a hostile client might send as a string field. */
export const hostileText = fc.oneof(controlText, unicodeText, longText, fc.constant(""));

/** A value for a field: usually the plausible one, sometimes anything at all. */
export const mostly = <T>(plausible: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: plausible as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: hostileText },
    { weight: 1, arbitrary: anyJson },
  );

/** A field set to a hostile value, or left out. */
export const optionalField = <T>(plausible: fc.Arbitrary<T>) =>
  fc.option(mostly(plausible), { nil: undefined, freq: 2 });
