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
