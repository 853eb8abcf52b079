// <headlab-choice-quiz>: a single-choice question whose content is the author's
// markup (light DOM), so math the site typesets at build time renders as written.
//
//   <headlab-choice-quiz>
//     <p slot="question">Which …?</p>
//     <div slot="choice">…</div>
//     <div slot="choice" data-correct>…</div>   exactly one choice marked data-correct
//     <div slot="why">…</div>                    optional, one per choice in order: shown
//                                                after Check, saying why that choice is right or wrong
//     <div slot="hint">…</div>                   optional
//     <div slot="solution">…</div>               optional
//   </headlab-choice-quiz>
//
// The parts are assigned to the shadow tree's slots by hand (slotAssignment
// "manual"), one slot per choice, each inside a label with a native radio button.
// Check, Hint and Solution are buttons; the verdict is announced by a live region.
import { HeadlabElement, WidgetInputError, el } from './base/headlab-element.js';
import { localId } from './base/ids.js';

export interface ChoiceQuizState {
  /** 1-based selected choice, or null. */
  selected: number | null;
  /** Verdict of the last Check for the selection at that time, or null. */
  result: 'correct' | 'incorrect' | null;
  hint_shown: boolean;
  solution_shown: boolean;
}

/** The parts build() makes (this.parts). */
interface ChoiceQuizParts {
  feedback: HTMLParagraphElement;
  hintBox: HTMLDivElement;
  solutionBox: HTMLDivElement;
  /** Null when the quiz has no hint (no solution). */
  hintButton: HTMLButtonElement | null;
  solutionButton: HTMLButtonElement | null;
}

/** Content: slot="question", ≥ 2 slot="choice" (one data-correct), optional slot="hint", "solution", "title". Shared: selected, checked, hint, solution. */
export class HeadlabChoiceQuiz extends HeadlabElement<ChoiceQuizState, ChoiceQuizParts> {
  protected static needsCore = false;
  protected static shadowOptions: Partial<ShadowRootInit> = { slotAssignment: 'manual' };
  protected static css = /* css */ `
    fieldset { border: 0; margin: 0; padding: 0; min-width: 0; }
    legend { padding: 0; margin-bottom: 0.5rem; }
    .choice { display: flex; gap: 0.6rem; align-items: baseline; padding: 0.35rem 0.5rem; border: 1px solid transparent; border-radius: 4px; cursor: pointer; }
    .choice:hover { border-color: var(--hl-rule); }
    .choice input { flex: 0 0 auto; margin: 0; transform: translateY(0.1em); }
    .choice .verdict { margin-left: auto; }
    .choice.is-correct { border-color: var(--hl-good); }
    .choice.is-incorrect { border-color: var(--hl-bad); }
    .verdict.good, .feedback.good { color: var(--hl-good); font-weight: 600; }
    .verdict.bad, .feedback.bad { color: var(--hl-bad); font-weight: 600; }
    .feedback { min-height: 1.6em; margin: 0.25rem 0; }
    .hint, .solution { border-top: 1px solid var(--hl-rule); margin-top: 0.5rem; padding-top: 0.25rem; }
    .why { margin: 0.25rem 0 0.5rem; padding-left: 0.75rem; border-left: 3px solid var(--hl-rule); }
    .part-title { font-weight: 600; margin: 0.25rem 0; }
    ::slotted(*) { margin: 0; }
  `;

  private selected: number | null = null;
  private result: 'correct' | 'incorrect' | null = null;
  private hintShown = false;
  private solutionShown = false;
  private correct = -1;
  private radios: HTMLInputElement[] = [];
  private choiceLabels: HTMLLabelElement[] = [];
  private verdicts: HTMLSpanElement[] = [];
  private whyBoxes: HTMLDivElement[] = [];

  /** Shareable state: selected (1-based), checked, hint and solution flags ("1"), e.g. #quiz.selected=2&quiz.checked=1. */
  get sharedState(): Record<string, string> {
    const out: Record<string, string> = {};
    if (this.selected !== null) out.selected = String(this.selected + 1);
    if (this.result !== null) out.checked = '1';
    if (this.hintShown) out.hint = '1';
    if (this.solutionShown) out.solution = '1';
    return out;
  }

  set sharedState(values: Record<string, string>) {
    const n = this.choiceCount();
    const raw = values.selected;
    let selected: number | null = null;
    if (raw !== undefined) {
      const k = Number(raw);
      if (!Number.isInteger(k) || k < 1 || k > n)
        throw new WidgetInputError(`selected="${raw}" (from the link) must be a choice number from 1 to ${n}`);
      selected = k - 1;
    }
    this.selected = selected;
    this.result = selected !== null && values.checked === '1' ? (selected === this.correct ? 'correct' : 'incorrect') : null;
    this.hintShown = values.hint === '1';
    this.solutionShown = values.solution === '1';
    if (this.hasParts && this.result !== null) this.showVerdict(this.parts.feedback);
    this.requestRender();
  }

  private choiceCount(): number {
    return Array.from(this.children).filter((c) => c.getAttribute('slot') === 'choice').length;
  }

  protected summarize(): string {
    const n = this.radios.length;
    const chosen = this.selected === null ? 'no choice selected' : `choice ${this.selected + 1} selected`;
    const verdict = this.result === null ? '' : this.result === 'correct' ? ', checked: correct' : ', checked: not correct';
    return `Question with ${n} choices; ${chosen}${verdict}.`;
  }

  protected readState(): ChoiceQuizState {
    return {
      selected: this.selected === null ? null : this.selected + 1,
      result: this.result,
      hint_shown: this.hintShown,
      solution_shown: this.solutionShown,
    };
  }

  protected build(): ChoiceQuizParts {
    this.radios = [];
    this.choiceLabels = [];
    this.verdicts = [];
    const parts = (name: string) => Array.from(this.children).filter((c) => c.getAttribute('slot') === name);
    const question = parts('question');
    const choices = parts('choice');
    const hint = parts('hint');
    const solution = parts('solution');
    const why = parts('why');
    if (why.length && why.length !== choices.length)
      throw new WidgetInputError(`give one slot="why" explanation per choice (${choices.length}), found ${why.length}`);
    if (question.length !== 1)
      throw new WidgetInputError(`the quiz needs exactly one child with slot="question", found ${question.length}`);
    if (choices.length < 2) throw new WidgetInputError(`the quiz needs at least two children with slot="choice", found ${choices.length}`);
    const marked = choices.flatMap((c, i) => (c.hasAttribute('data-correct') ? [i] : []));
    if (marked.length !== 1) throw new WidgetInputError(`exactly one choice must carry data-correct, found ${marked.length}`);
    this.correct = marked[0];
    if (this.selected !== null && this.selected >= choices.length) this.selected = null;
    if (this.result !== null && this.selected !== null) this.result = this.selected === this.correct ? 'correct' : 'incorrect';

    const slotFor = (nodes: Element[]) => {
      const slot = el('slot');
      slot.assign(...nodes);
      return slot;
    };
    const titleParts = parts('title');
    if (titleParts.length) this.body.append(slotFor(titleParts));

    const fieldset = el('fieldset');
    const legend = el('legend');
    legend.append(slotFor(question));
    fieldset.append(legend);
    const group = localId(this, 'choice');
    choices.forEach((choice, i) => {
      const label = el('label', { class: 'choice' });
      const radio = el('input', { type: 'radio', name: group, value: String(i + 1) });
      const content = el('span');
      content.append(slotFor([choice]));
      const verdict = el('span', { class: 'verdict' });
      label.append(radio, content, verdict);
      this.listen(radio, 'change', () => {
        if (!radio.checked) return;
        this.selected = i;
        this.result = null;
        this.requestRender();
        this.emitChange();
      });
      fieldset.append(label);
      this.radios.push(radio);
      this.choiceLabels.push(label);
      this.verdicts.push(verdict);
    });

    const buttons = el('div', { class: 'row' });
    const check = el('button', { type: 'button' }, 'Check');
    this.listen(check, 'click', () => {
      this.result = this.selected === null ? null : this.selected === this.correct ? 'correct' : 'incorrect';
      this.showVerdict(this.parts.feedback);
      this.requestRender();
      this.emitChange();
    });
    buttons.append(check);
    const toggle = (label: string, box: HTMLDivElement, flip: () => void) => {
      const button = el('button', { type: 'button', 'aria-expanded': 'false', 'aria-controls': box.id }, label);
      this.listen(button, 'click', () => {
        flip();
        this.requestRender();
        this.emitChange();
      });
      buttons.append(button);
      return button;
    };
    const hintBox = el('div', { class: 'hint', id: localId(this, 'hint'), hidden: '' });
    hintBox.append(el('p', { class: 'part-title' }, 'Hint'), slotFor(hint));
    const solutionBox = el('div', { class: 'solution', id: localId(this, 'solution'), hidden: '' });
    solutionBox.append(el('p', { class: 'part-title' }, 'Solution'), slotFor(solution));
    const hintButton = hint.length
      ? toggle('Hint', hintBox, () => {
          this.hintShown = !this.hintShown;
        })
      : null;
    const solutionButton = solution.length
      ? toggle('Solution', solutionBox, () => {
          this.solutionShown = !this.solutionShown;
        })
      : null;
    const feedback = el('p', { class: 'feedback', role: 'status', 'aria-live': 'polite' });
    if (this.result !== null) this.showVerdict(feedback);
    this.whyBoxes = why.map((w) => {
      const box = el('div', { class: 'why', hidden: '' });
      box.append(slotFor([w]));
      return box;
    });
    this.body.append(fieldset, buttons, feedback, ...this.whyBoxes, hintBox, solutionBox);
    return { feedback, hintBox, solutionBox, hintButton, solutionButton };
  }

  /** Writes the verdict into the live region now (not in the next frame), so it is announced after the click. */
  private showVerdict(f: HTMLParagraphElement): void {
    if (this.result === null) {
      f.textContent = 'Select one choice, then check.';
      f.className = 'feedback';
    } else if (this.result === 'correct') {
      f.textContent = `Correct: choice ${this.selected! + 1} is right.`;
      f.className = 'feedback good';
    } else {
      f.textContent = `Not quite: choice ${this.selected! + 1} is not right. Try another, or open the hint.`;
      f.className = 'feedback bad';
    }
  }

  protected render(): void {
    this.radios.forEach((radio, i) => {
      radio.checked = i === this.selected;
    });
    this.choiceLabels.forEach((label, i) => {
      const checkedHere = this.result !== null && i === this.selected;
      const revealed = this.solutionShown && i === this.correct;
      const good = (checkedHere && this.result === 'correct') || revealed;
      const bad = checkedHere && this.result === 'incorrect';
      label.classList.toggle('is-correct', good);
      label.classList.toggle('is-incorrect', bad);
      const v = this.verdicts[i];
      v.textContent = good ? '✓ correct' : bad ? '✗ not this one' : '';
      v.className = `verdict${good ? ' good' : bad ? ' bad' : ''}`;
    });
    if (this.result === null && this.parts.feedback.classList.length > 1) {
      this.parts.feedback.textContent = '';
      this.parts.feedback.className = 'feedback';
    }
    this.whyBoxes.forEach((box, i) => {
      box.hidden = this.result === null || i !== this.selected;
    });
    this.parts.hintBox.hidden = !this.hintShown;
    this.parts.solutionBox.hidden = !this.solutionShown;
    this.parts.hintButton?.setAttribute('aria-expanded', String(this.hintShown));
    this.parts.solutionButton?.setAttribute('aria-expanded', String(this.solutionShown));
  }
}
