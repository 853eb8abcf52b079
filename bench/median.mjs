// The one timer of the JS benchmarks (docs/conventions.md: "Benchmarks print medians of ≥ 5
// runs"); the native benchmarks have bench/median.hpp.
import { performance } from 'node:perf_hooks';

/** The median of xs (the upper middle one for an even count). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Median wall time of `runs` calls of f, in ms. `warmup: true` calls f once first, untimed (the
 * engine compiles the module's hot functions once, as a page would).
 */
export function medianMs(runs, f, { warmup = false } = {}) {
  if (warmup) f();
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const start = performance.now();
    f();
    ms.push(performance.now() - start);
  }
  return median(ms);
}

/**
 * Median CPU time (user + system of this process) of `runs` calls after one warm-up, in ms: on a
 * machine shared with other work, wall time counts the waits for a core and CPU time does not.
 */
export function medianCpuMs(runs, f) {
  f();
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const start = process.cpuUsage();
    f();
    const used = process.cpuUsage(start);
    ms.push((used.user + used.system) / 1000);
  }
  return median(ms);
}
