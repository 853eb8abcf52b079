// <headlab-choice-quiz>: the article's Q1 marks right and wrong answers, by mouse
// and by keyboard; hint and solution fold open with their typeset math.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { screenshot, startSession } from './helpers.mjs';
import { changes, frames, openArticle } from './widget-fixtures.mjs';

const TAG = 'headlab-choice-quiz';

let session;
before(async () => {
  session = await startSession({ csp: true });
});
after(async () => {
  await session?.close();
});

const open = (colorScheme) => openArticle(session, TAG, colorScheme);

for (const colorScheme of ['light', 'dark']) {
  test(`choice quiz: mouse marks a wrong and the right answer (${colorScheme})`, async () => {
    const page = await open(colorScheme);
    const quiz = page.locator(`${TAG}#quiz`);
    const feedback = quiz.getByRole('status');
    await quiz.getByRole('button', { name: 'Check' }).click();
    await assert.doesNotReject(feedback.getByText('Select one choice, then check.').waitFor());

    await quiz.getByText('The query projection').click(); // clicking the slotted label text selects the radio
    assert.equal(await quiz.getByRole('radio').nth(0).isChecked(), true);
    await quiz.getByRole('button', { name: 'Check' }).click();
    await frames(page);
    assert.match(await feedback.textContent(), /Not quite: choice 1 is not right/);
    assert.match(await quiz.locator('label.choice').nth(0).textContent(), /✗ not this one/);
    assert.deepEqual((await changes(page)).at(-1), { selected: 1, result: 'incorrect', hint_shown: false, solution_shown: false });

    await quiz.getByText('The value projection').click();
    await quiz.getByRole('button', { name: 'Check' }).click();
    await frames(page);
    assert.match(await feedback.textContent(), /Correct: choice 3 is right/);
    assert.match(await quiz.locator('label.choice').nth(2).textContent(), /✓ correct/);
    assert.doesNotMatch(await quiz.locator('label.choice').nth(0).textContent(), /not this one/);

    const hintButton = quiz.getByRole('button', { name: 'Hint' });
    assert.equal(await hintButton.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.locator(`${TAG}#quiz > [slot="hint"] .katex`).first().isVisible(), false);
    await hintButton.click();
    await frames(page);
    assert.equal(await hintButton.getAttribute('aria-expanded'), 'true');
    assert.equal(await page.locator(`${TAG}#quiz > [slot="hint"] .katex`).first().isVisible(), true);
    await quiz.getByRole('button', { name: 'Solution' }).click();
    await frames(page);
    assert.equal(await page.locator(`${TAG}#quiz > [slot="solution"] .katex`).first().isVisible(), true);
    // Math in choices is KaTeX from the build, rendered in the light DOM.
    assert.equal(await page.locator(`${TAG}#quiz > [slot="choice"] .katex`).nth(2).isVisible(), true);
    await screenshot(quiz, `choice-quiz-${colorScheme}`);
    assert.deepEqual(page.problems, []);
  });
}

test('choice quiz: keyboard only', async () => {
  const page = await open();
  const quiz = page.locator(`${TAG}#quiz`);
  await quiz.getByRole('radio').nth(0).focus();
  await page.keyboard.press('Space'); // select choice 1
  await page.keyboard.press('ArrowDown'); // choice 2
  await frames(page);
  assert.equal(await quiz.getByRole('radio').nth(1).isChecked(), true);
  await page.keyboard.press('Tab'); // radio group → Check
  await page.keyboard.press('Enter');
  await frames(page);
  assert.match(await quiz.getByRole('status').textContent(), /Not quite: choice 2/);
  await quiz.getByRole('radio').nth(1).focus();
  await page.keyboard.press('ArrowDown'); // choice 3
  await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await frames(page);
  assert.match(await quiz.getByRole('status').textContent(), /Correct: choice 3/);
  await page.keyboard.press('Tab'); // → Hint
  await page.keyboard.press('Enter');
  await frames(page);
  assert.equal(await quiz.getByRole('button', { name: 'Hint' }).getAttribute('aria-expanded'), 'true');
  assert.deepEqual((await changes(page)).at(-1), { selected: 3, result: 'correct', hint_shown: true, solution_shown: false });
  assert.deepEqual(page.problems, []);
});
