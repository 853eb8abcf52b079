// What a widget derives from its inputs, computed once per change of them. render(),
// summarize(), `state` and figures() all read the same derived view in one frame; without a
// memo each of them would parse the attributes and call the core again (docs/conventions.md:
// one render per animation frame is only cheap when that render computes once).

/**
 * The last value computed, kept while its inputs are unchanged: `inputs` lists every input the
 * computation read (attribute text, another memo's value), compared one by one with ===.
 */
export class Memo<V> {
  private inputs: readonly unknown[] | null = null;
  private value: V | undefined;

  /** The kept value when `inputs` equal the last ones, else compute() (kept unless it throws). */
  get(inputs: readonly unknown[], compute: () => V): V {
    const last = this.inputs;
    if (last && last.length === inputs.length && last.every((x, i) => x === inputs[i])) return this.value as V;
    const value = compute();
    this.inputs = inputs.slice();
    this.value = value;
    return value;
  }

  /** Forgets the kept value (the next get computes). */
  clear(): void {
    this.inputs = null;
    this.value = undefined;
  }
}

/**
 * Values computed once per (model version, key), for figures that keep several inputs' results
 * (each prompt, each head): at most `limit` kept, all forgotten when one more would exceed it, so
 * a reader sweeping a control never grows the page without bound.
 */
export class VersionedCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly limit: number) {}

  /** The kept value for `key` under model `version`, else make() (kept unless it throws). */
  get<T extends V>(version: number, key: string, make: () => T): T {
    const k = `${version}|${key}`;
    if (this.map.has(k)) return this.map.get(k) as T;
    const value = make();
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(k, value);
    return value;
  }

  /** The kept value for `key` under model `version`, or undefined. */
  find(version: number, key: string): V | undefined {
    return this.map.get(`${version}|${key}`);
  }

  /** Keeps `value` for `key` under model `version` (a value computed elsewhere, e.g. in the worker). */
  put(version: number, key: string, value: V): void {
    if (this.map.size >= this.limit) this.map.clear();
    this.map.set(`${version}|${key}`, value);
  }

  clear(): void {
    this.map.clear();
  }
}
