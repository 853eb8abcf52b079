// Attribute ↔ property mirroring: getters parse the attribute (throwing WidgetInputError naming
// it when it is malformed); setters write the attribute, so attributeChangedCallback is the one
// path by which state changes.
import { formatCount } from '../chart/format.js';
import { MAX_SEED, MAX_WEIGHT_MAGNITUDE } from './core-limits.js';
import { messageOf, WidgetInputError } from './errors.js';

/** Longest attribute value a widget parses (the largest shipped attribute, a trained run's matrices, is under 20,000). */
export const MAX_ATTRIBUTE_LENGTH = 200_000;

/** Largest seed every widget accepts: the core's (core/check.hpp kMaxSeed), the integers a JS number holds exactly. */
export { MAX_SEED };

/** A finite number attribute in [min, max], or `fallback` when absent. */
export function numberAttribute(host: Element, name: string, fallback: number, min = -Infinity, max = Infinity): number {
  const raw = host.getAttribute(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) {
    throw new WidgetInputError(`attribute ${name}="${raw}" is not a finite number`);
  }
  if (value < min || value > max) {
    throw new WidgetInputError(`attribute ${name}="${raw}" must be between ${min} and ${max}`);
  }
  return value;
}

/** An integer attribute in [min, max], or `fallback` when absent. */
export function integerAttribute(host: Element, name: string, fallback: number, min: number, max: number): number {
  const value = numberAttribute(host, name, fallback, min, max);
  if (!Number.isInteger(value)) throw new WidgetInputError(`attribute ${name}="${host.getAttribute(name)}" must be an integer`);
  return value;
}

/** Writes a number attribute (the setter side of a mirrored property). */
export function setNumberAttribute(host: Element, name: string, value: number): void {
  host.setAttribute(name, String(value));
}

/** A JSON attribute parsed, or undefined when absent. */
export function jsonAttribute(host: Element, name: string): unknown {
  const raw = host.getAttribute(name);
  if (raw === null) return undefined;
  if (raw.length > MAX_ATTRIBUTE_LENGTH) {
    throw new WidgetInputError(
      `attribute ${name} is ${formatCount(raw.length)} characters long; the limit is ${formatCount(MAX_ATTRIBUTE_LENGTH)}`,
    );
  }
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new WidgetInputError(`attribute ${name} is not valid JSON: ${messageOf(err)}`);
  }
}

/**
 * Largest |entry| of a matrix an author gives a widget (docs/limits.md): the same bound as the
 * core's weights (core/limits.hpp kMaxWeightMagnitude, through the generated core-limits.ts). A score is at most four entries
 * deep (x W_q (x W_k)ᵀ) with ≤ 16·16·16 terms at the grid limits below: ≤ 4,096·(1e6)⁴ = 4e27,
 * far inside the double range, so no author matrix can overflow a table or a chart to ±Infinity.
 */
export const MAX_ENTRY_MAGNITUDE = MAX_WEIGHT_MAGNITUDE;
/**
 * Most rows and columns of an author's matrix (docs/limits.md). The widgets that take them build
 * n × n score tables on the main thread; 16 × 16 (512 score cells) is chosen to stay within the
 * 4 ms frame budget, where 100 rows once took 2.6 s (not yet measured at the limit in
 * bench/widgets.bench.mjs).
 */
export const MAX_GRID_SIDE = 16;

/**
 * Checks that `value` is an array of `rows` arrays of `cols` finite numbers (a
 * dimension given as 0 accepts any length ≥ 1, equal across rows), at most `maxSide` rows and
 * columns and every |entry| ≤ MAX_ENTRY_MAGNITUDE; `what` names it.
 */
export function numberGrid(value: unknown, what: string, rows = 0, cols = 0, maxSide = MAX_GRID_SIDE): number[][] {
  if (!Array.isArray(value) || value.length === 0) throw new WidgetInputError(`${what} must be a non-empty array of rows`);
  if (rows && value.length !== rows) throw new WidgetInputError(`${what} must have ${rows} rows, got ${value.length}`);
  if (value.length > maxSide) {
    throw new WidgetInputError(`${what} has ${formatCount(value.length)} rows; the limit is ${maxSide}`);
  }
  const width = cols || (Array.isArray(value[0]) ? value[0].length : 0);
  if (width > maxSide) {
    throw new WidgetInputError(`${what} has ${formatCount(width)} columns; the limit is ${maxSide}`);
  }
  value.forEach((row: unknown, i: number) => {
    if (!Array.isArray(row) || row.length === 0 || row.length !== width) {
      throw new WidgetInputError(`${what} row ${i + 1} must be an array of ${width || 'one or more'} numbers`);
    }
    row.forEach((x: unknown, j: number) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new WidgetInputError(`${what} row ${i + 1}, column ${j + 1} must be a finite number, got "${String(JSON.stringify(x))}"`);
      }
      if (Math.abs(x) > MAX_ENTRY_MAGNITUDE) {
        throw new WidgetInputError(
          `${what} row ${i + 1}, column ${j + 1} is ${x}, beyond the magnitude limit ±${MAX_ENTRY_MAGNITUDE.toExponential()} (larger entries overflow the scores)`,
        );
      }
    });
  });
  return value as number[][];
}

/**
 * One of a fixed set of words: the attribute's value when it is one of `values`, `fallback`
 * when absent or empty; anything else names the attribute and the words it accepts (quoted unless
 * `quoted` is false).
 */
export function enumAttribute<T extends string>(host: Element, name: string, values: readonly T[], fallback: T, quoted = true): T {
  const raw = host.getAttribute(name);
  if (raw === null || raw === '') return fallback;
  if ((values as readonly string[]).includes(raw)) return raw as T;
  const words = values.map((v) => (quoted ? `"${v}"` : v));
  const list = words.length > 1 ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}` : words[0];
  throw new WidgetInputError(`attribute ${name}="${raw}" must be ${list}`);
}

// ---- attribute tables ----
//
// Each element declares its attributes once, as a table (`static attributes = defineAttributes({…})`):
// name → how the attribute is parsed, its default, bounds, documentation and whether it is part
// of the shareable state. From the table the element gets its `observedAttributes`, its shared
// attributes (share-state) and one property accessor per attribute (camelCase: `learning-rate` →
// `learningRate`; the getter parses, the setter writes the attribute); the site build writes the
// element's entries in custom-elements.json and types/headlab.d.ts from it. Every parse goes
// through the readers above, so every message has the form `attribute NAME="VALUE" must be …`.

/** A value given either fixed or computed from the element (bounds that depend on the loaded model). */
export type Dynamic<T, H> = T | ((host: H) => T);

/** How one attribute is read, written and described. `H` is the element the dynamic parts read. */
export interface AttributeSpec<T, H = Element> {
  /** The value the attribute holds now (its default when absent); throws WidgetInputError naming it when malformed. */
  read(host: H, name: string): T;
  /** Writes `value` to the attribute (null or false removes it). */
  write(host: H, name: string, value: T): void;
  /** The property's type as the package's declarations write it. */
  readonly type: string;
  /** The attribute's type in markup (JSX), values being strings. */
  readonly markup: string;
  /** What the attribute means, for the manifest and the package's declarations. */
  readonly doc: string;
  /** Part of the reader's state in the URL hash (share-state). */
  readonly shared: boolean;
  /** Whether the element gets a property accessor for it (false: an attribute only, e.g. a model's id). */
  readonly property: boolean;
  /** The property is read-only. */
  readonly readonly: boolean;
  /** The default when fixed, as the manifest writes it. */
  readonly fallback?: string;
}

/** `spec` as an attribute only: the element gets no property for it (its value is parsed where it is used). */
export function attributeOnly<T, H>(s: AttributeSpec<T, H>): AttributeSpec<T, H> & { readonly property: false } {
  return { ...s, property: false };
}

/** An element's attribute table: attribute name → spec. */
export type AttributeTable = Readonly<Record<string, AttributeSpec<unknown, Element>>>;

/** What every spec builder takes besides its own options. */
export interface SpecOptions {
  doc: string;
  /** Part of the shareable state (default false). */
  shared?: boolean;
  /** Whether the element gets a property accessor (default true). */
  property?: boolean;
  /** The attribute's type in markup, when narrower than the builder's (e.g. the words a text attribute takes). */
  markup?: string;
  /** The property is read-only (the element writes only a getter). */
  readonly?: boolean;
}

const valueOf = <T, H>(v: Dynamic<T, H>, host: H): T => (typeof v === 'function' ? (v as (host: H) => T)(host) : v);
const fixedText = (v: unknown): string | undefined =>
  typeof v === 'function' || v === undefined || v === null ? undefined : typeof v === 'string' ? `"${v}"` : String(v);

function spec<T, H>(
  o: SpecOptions,
  type: string,
  markup: string,
  read: (host: H, name: string) => T,
  write: (host: H, name: string, value: T) => void,
  fallback?: unknown,
): AttributeSpec<T, H> {
  return {
    read,
    write,
    type,
    markup: o.markup ?? markup,
    doc: o.doc,
    shared: o.shared ?? false,
    property: o.property ?? true,
    readonly: o.readonly ?? false,
    ...(fixedText(fallback) === undefined ? {} : { fallback: fixedText(fallback) }),
  };
}

function writeNumber(host: Element, name: string, value: number | null): void {
  if (value === null) host.removeAttribute(name);
  else setNumberAttribute(host, name, value);
}

interface NumberOptions<H> extends SpecOptions {
  min: Dynamic<number, H>;
  max: Dynamic<number, H>;
}

/** An integer in [min, max]; `fallback` when absent (null: the property is null then). */
export function integer<H = Element>(o: NumberOptions<H> & { fallback: Dynamic<number, H> }): AttributeSpec<number, H>;
export function integer<H = Element>(o: NumberOptions<H> & { fallback: null }): AttributeSpec<number | null, H>;
export function integer<H = Element>(o: NumberOptions<H> & { fallback: Dynamic<number, H> | null }): AttributeSpec<number | null, H> {
  return spec<number | null, H>(
    o,
    o.fallback === null ? 'number | null' : 'number',
    'Num',
    (host, name) => {
      if (o.fallback === null && !(host as Element).hasAttribute(name)) return null;
      return integerAttribute(host as Element, name, valueOf(o.fallback ?? 0, host), valueOf(o.min, host), valueOf(o.max, host));
    },
    (host, name, v) => writeNumber(host as Element, name, v),
    o.fallback,
  );
}

/** A finite number in [min, max]; `fallback` when absent. */
export function number<H = Element>(o: NumberOptions<H> & { fallback: Dynamic<number, H> }): AttributeSpec<number, H> {
  return spec<number, H>(
    o,
    'number',
    'Num',
    (host, name) => numberAttribute(host as Element, name, valueOf(o.fallback, host), valueOf(o.min, host), valueOf(o.max, host)),
    (host, name, v) => writeNumber(host as Element, name, v),
    o.fallback,
  );
}

/** One of a fixed set of words; `fallback` when absent or empty. `quoted` (default true): the message quotes the words. */
export function oneOf<const V extends string, const O extends SpecOptions & { fallback: Dynamic<V, H>; quoted?: boolean }, H = Element>(
  values: readonly V[],
  o: O,
): AttributeSpec<V, H> & Marked<O> {
  const union = values.map((v) => `'${v}'`).join(' | ');
  return spec<V, H>(
    o,
    union,
    union,
    (host, name) => enumAttribute(host as Element, name, values, valueOf(o.fallback, host), o.quoted ?? true),
    (host, name, v) => (host as Element).setAttribute(name, v),
    o.fallback,
  ) as AttributeSpec<V, H> & Marked<O>;
}

/** `{ property: false }` in the spec's type when its options say so (AttributeProperties then gives no property). */
type Marked<O> = O extends { property: false } ? { readonly property: false } : unknown;

/** Text, '' when absent (a prompt, an element's id, a file's location). */
export function text<const O extends SpecOptions, H = Element>(o: O): AttributeSpec<string, H> & Marked<O> {
  return spec<string, H>(
    o,
    'string',
    'string',
    (host, name) => (host as Element).getAttribute(name) ?? '',
    (host, name, v) => (host as Element).setAttribute(name, v),
  ) as AttributeSpec<string, H> & Marked<O>;
}

/** A boolean attribute: present or absent. */
export function flag<H = Element>(o: SpecOptions): AttributeSpec<boolean, H> {
  return spec<boolean, H>(
    o,
    'boolean',
    "boolean | ''",
    (host, name) => (host as Element).hasAttribute(name),
    (host, name, v) => (host as Element).toggleAttribute(name, v),
  );
}

/**
 * An attribute with a grammar of its own (digit lists, head lists, JSON matrices): `parse` reads
 * the attribute's text (null when absent) and throws WidgetInputError naming it; `format` writes
 * a value back (null removes the attribute). `type` is the property's type as the package writes it.
 */
export function custom<T, H = Element>(
  o: SpecOptions & {
    type: string;
    markup?: string;
    parse: (raw: string | null, host: H, name: string) => T;
    format: (value: T) => string | null;
  },
): AttributeSpec<T, H> {
  return spec<T, H>(
    o,
    o.type,
    o.markup ?? 'string',
    (host, name) => o.parse((host as Element).getAttribute(name), host, name),
    (host, name, v) => {
      const s = o.format(v);
      if (s === null) (host as Element).removeAttribute(name);
      else (host as Element).setAttribute(name, s);
    },
  );
}

/** A JSON attribute checked by `check` (which names `attribute NAME` in its messages); `fallback` when absent. */
export function json<T, H = Element>(
  o: SpecOptions & { type: string; check: (value: unknown, host: H, name: string) => T; fallback: Dynamic<T, H> },
): AttributeSpec<T, H> {
  return spec<T, H>(
    o,
    o.type,
    'string',
    (host, name) => {
      const raw = jsonAttribute(host as Element, name);
      return raw === undefined ? valueOf(o.fallback, host) : o.check(raw, host, name);
    },
    (host, name, v) => {
      if (v === null) (host as Element).removeAttribute(name);
      else (host as Element).setAttribute(name, JSON.stringify(v));
    },
  );
}

/** The table as given, typed: `static attributes = defineAttributes({ seed: integer({…}), … })`. */
export function defineAttributes<const T extends Record<string, AttributeSpec<unknown, Element>>>(table: T): T {
  return table;
}

/** `learning-rate` → `learningRate`. */
export type CamelCase<S extends string> = S extends `${infer H}-${infer T}` ? `${H}${Capitalize<CamelCase<T>>}` : S;
export const camelCase = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The properties a table gives its element, for the interface merged with the class
 * (`export interface HeadlabX extends AttributeProperties<typeof ATTRIBUTES> {}`): one per
 * attribute whose spec has a property accessor, typed as the spec reads it.
 */
export type AttributeProperties<T> = {
  -readonly [
    K in keyof T as K extends string ? (T[K] extends { readonly property: false } ? never : CamelCase<K>) : never
  ]: T[K] extends AttributeSpec<infer V, never> ? V : never;
};

/** A class with an attribute table (the table of a subclass adds to its base's). */
interface WithTable {
  attributes?: AttributeTable;
  prototype: object;
}

const installed = new WeakSet<object>();

/** The attributes of `ctor` and of its bases, the base's first. */
export function attributeTable(ctor: WithTable): AttributeTable {
  const chain: AttributeTable[] = [];
  for (let c: unknown = ctor; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    if (Object.prototype.hasOwnProperty.call(c, 'attributes')) chain.unshift((c as WithTable).attributes ?? {});
  }
  return Object.assign({}, ...chain) as AttributeTable;
}

/**
 * Defines on the prototype of every class in `ctor`'s chain that has a table the accessors its
 * table gives (once per class); an accessor the class writes itself is kept.
 */
export function installAttributes(ctor: WithTable): void {
  for (let c: unknown = ctor; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    const cls = c as WithTable;
    if (installed.has(cls) || !Object.prototype.hasOwnProperty.call(cls, 'attributes')) continue;
    installed.add(cls);
    for (const [name, s] of Object.entries(cls.attributes ?? {})) {
      const key = camelCase(name);
      if (!s.property || Object.prototype.hasOwnProperty.call(cls.prototype, key)) continue;
      const read = s.read as (host: Element, name: string) => unknown;
      const write = s.write as (host: Element, name: string, value: unknown) => void;
      Object.defineProperty(cls.prototype, key, {
        configurable: true,
        enumerable: false,
        get(this: Element) {
          return read(this, name);
        },
        set(this: Element, value: unknown) {
          write(this, name, value);
        },
      });
    }
  }
}

/** The attribute names `ctor` observes: its table's (accessors installed on the way). */
export function observedOf(ctor: WithTable): string[] {
  installAttributes(ctor);
  return Object.keys(attributeTable(ctor));
}

/** The attributes of `ctor` that make up its shareable state. */
export function sharedOf(ctor: WithTable): string[] {
  return Object.entries(attributeTable(ctor))
    .filter(([, s]) => s.shared)
    .map(([name]) => name);
}

/**
 * An attribute whose property the element writes itself (its value depends on what the element
 * has loaded: a file's seeds, the prompt's length): the table declares the attribute, its type
 * and documentation; the accessor is the class's.
 */
export function accessor<T, H = Element>(o: SpecOptions & { type: string; markup?: string }): AttributeSpec<T, H> {
  return spec<T, H>(
    o,
    o.type,
    o.markup ?? 'string',
    (host, name) => Reflect.get(host as object, camelCase(name)) as T,
    (host, name, v) => Reflect.set(host as object, camelCase(name), v),
  );
}
