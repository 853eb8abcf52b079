// The widgets' copy of the core's limits is generated from the C++ (site/core-limits.mjs): the
// committed widgets/base/core-limits.ts is what the generator writes from today's headers, so a
// changed core constant cannot leave the widgets on the old value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { CORE_LIMITS, CORE_LIMITS_FILE, coreConstant, coreLimitsSource } from '../../site/core-limits.mjs';

test("widgets/base/core-limits.ts is the generator's output (node site/core-limits.mjs --write)", () => {
  assert.equal(fs.readFileSync(CORE_LIMITS_FILE, 'utf8'), coreLimitsSource());
});

test('the generated constants have the values the core compiles', () => {
  const values = Object.fromEntries(CORE_LIMITS.map(([cpp, file]) => [cpp, coreConstant(file, cpp)]));
  assert.deepEqual(values, {
    kMaxTrainingSteps: 1e7,
    kMaxWeightMagnitude: 1e6,
    kMaxInitScale: 1e4,
    kMaxSeed: 2 ** 53 - 1,
    kInductionDefaultSteps: 1800,
    kMaxFeatureRecoveryShift: 1e6,
    kMaxPromptPairsBytes: 16 * 2 ** 20,
  });
});
