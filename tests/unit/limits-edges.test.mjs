// docs/limits.md's widget limits that a Node test can reach without a browser, kept exactly: each
// is read at the limit and refused one past it with the documented message (the C++ readers'
// rows are tests/formats/limits_test.cpp; the grid limits per widget are in tests/browser/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { importTs, root } from './load-ts.mjs';

const attributes = await importTs('widgets/base/attributes.ts');
const download = await importTs('widgets/base/download.ts');
const { MAX_ATTRIBUTE_LENGTH, MAX_SEED, MAX_ENTRY_MAGNITUDE, MAX_GRID_SIDE } = attributes;

/** An element holding one attribute, as the attribute readers see it. */
const host = (name, value) => ({ getAttribute: (n) => (n === name ? value : null) });
/** The double just above x (x > 0): x plus one unit in the last place. */
const justAbove = (x) => x + 2 ** (Math.floor(Math.log2(x)) - 52);
const grid = (rows, cols, entry = 1) => Array.from({ length: rows }, () => Array(cols).fill(entry));
/** A 16 MiB + extra body streamed in 1 MiB chunks without a Content-Length (a chunked download). */
function streamed(bytes) {
  let sent = 0;
  return new Response(
    new ReadableStream({
      pull(controller) {
        const n = Math.min(1 << 20, bytes - sent);
        if (n === 0) {
          controller.close();
          return;
        }
        controller.enqueue(new Uint8Array(n));
        sent += n;
      },
    }),
  );
}
/** widgets/max-digit/model.ts's MAX_WEIGHTS_BYTES (that module starts workers, so it is read, not imported). */
const MAX_WEIGHTS_BYTES = (() => {
  const m = fs.readFileSync(path.join(root, 'widgets/max-digit/model.ts'), 'utf8').match(/MAX_WEIGHTS_BYTES = (\d+) \* 1024 \* 1024;/);
  assert.ok(m, 'widgets/max-digit/model.ts defines MAX_WEIGHTS_BYTES in MiB');
  return Number(m[1]) * 1024 * 1024;
})();

const rows = [
  {
    input: 'a widget attribute (JSON), length',
    read: (extra) => attributes.jsonAttribute(host('x', `"${'a'.repeat(MAX_ATTRIBUTE_LENGTH - 2 + extra)}"`), 'x'),
    beyond: 'attribute x is 200,001 characters long; the limit is 200,000',
  },
  {
    input: 'seed of every widget',
    read: (extra) => attributes.integerAttribute(host('seed', String(MAX_SEED + extra)), 'seed', 0, 0, MAX_SEED),
    beyond: 'attribute seed="9007199254740992" must be between 0 and 9007199254740991',
  },
  {
    input: "rows of an author's matrix",
    read: (extra) => attributes.numberGrid(grid(MAX_GRID_SIDE + extra, 2), 'values'),
    beyond: 'values has 17 rows; the limit is 16',
  },
  {
    input: "columns of an author's matrix",
    read: (extra) => attributes.numberGrid(grid(2, MAX_GRID_SIDE + extra), 'values'),
    beyond: 'values has 17 columns; the limit is 16',
  },
  {
    input: "|entry| of an author's matrix",
    read: (extra) => attributes.numberGrid(grid(1, 1, extra ? justAbove(MAX_ENTRY_MAGNITUDE) : MAX_ENTRY_MAGNITUDE), 'values'),
    beyond: 'values row 1, column 1 is 1000000.0000000001, beyond the magnitude limit ±1e+6',
  },
  {
    input: "|entry| of an author's matrix (negative)",
    read: (extra) => attributes.numberGrid(grid(1, 1, extra ? -justAbove(MAX_ENTRY_MAGNITUDE) : -MAX_ENTRY_MAGNITUDE), 'values'),
    beyond: 'values row 1, column 1 is -1000000.0000000001, beyond the magnitude limit ±1e+6',
  },
  {
    input: 'interventions shift (±1e6, read by numberAttribute)',
    read: (extra) => attributes.numberAttribute(host('shift', String(extra ? -justAbove(1e6) : -1e6)), 'shift', 5, -1e6, 1e6),
    beyond: 'attribute shift="-1000000.0000000001" must be between -1000000 and 1000000',
  },
];

test('docs/limits.md: each widget limit is read at the limit and refused one past it', () => {
  for (const { input, read, beyond } of rows) {
    assert.doesNotThrow(() => read(0), `${input}: at the limit`);
    assert.throws(
      () => read(1),
      (err) => err.message.startsWith(beyond) || assert.fail(`${input}: "${err.message}"`),
    );
  }
});

test('docs/limits.md: a weights download of 16 MiB is read, one byte more is refused, declared or streamed', async () => {
  for (const extra of [0, 1]) {
    const declared = new Response(new Uint8Array(MAX_WEIGHTS_BYTES + extra), {
      headers: { 'content-length': String(MAX_WEIGHTS_BYTES + extra) },
    });
    const chunked = streamed(MAX_WEIGHTS_BYTES + extra);
    if (extra === 0) {
      assert.equal((await download.boundedBody(declared, MAX_WEIGHTS_BYTES)).byteLength, MAX_WEIGHTS_BYTES);
      assert.equal((await download.boundedBody(chunked, MAX_WEIGHTS_BYTES)).byteLength, MAX_WEIGHTS_BYTES);
    } else {
      await assert.rejects(
        download.boundedBody(declared, MAX_WEIGHTS_BYTES),
        (err) => err instanceof download.BodyTooLarge && err.declared === MAX_WEIGHTS_BYTES + 1,
      );
      await assert.rejects(
        download.boundedBody(chunked, MAX_WEIGHTS_BYTES),
        (err) => err instanceof download.BodyTooLarge && err.declared === null,
      );
    }
  }
});

test('docs/limits.md: a URL hash of 8,192 characters after the # is read, one more is refused with the message', async () => {
  const share = await importTs('widgets/base/share-state.ts');
  const { MAX_HASH_LENGTH, SharedStateLink } = share;
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'location');
  try {
    for (const extra of [0, 1]) {
      // One entry, "k.a=<value>", padded so that the text after the '#' is MAX_HASH_LENGTH + extra characters.
      const value = 'x'.repeat(MAX_HASH_LENGTH + extra - 'k.a='.length);
      Object.defineProperty(globalThis, 'location', { value: { hash: `#k.a=${value}` }, configurable: true, writable: true });
      let restored = null;
      const shown = [];
      const element = {
        shareKey: 'k',
        set sharedState(v) {
          restored = v;
        },
        get sharedState() {
          return {};
        },
      };
      const link = new SharedStateLink(element, { showError: (m) => shown.push(m), built: () => true });
      link.read('no');
      if (extra === 0) {
        assert.deepEqual(shown, [], 'at the limit');
        assert.equal(link.problem, null);
        assert.deepEqual(restored, { a: value });
      } else {
        assert.equal(restored, null, 'one past the limit: not read');
        assert.deepEqual(shown, ["The link's state is 8,193 characters long; links longer than 8,192 characters are not read."]);
      }
    }
  } finally {
    if (saved) Object.defineProperty(globalThis, 'location', saved);
    else delete globalThis.location;
  }
});
