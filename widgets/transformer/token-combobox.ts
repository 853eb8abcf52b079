// A labelled, searchable token input for a vocabulary too large for a <select> (the ARENA induction
// model's 50,278 tokens): an <input role="combobox"> whose typed text lists the matching tokens in
// a listbox below it (ARIA's combobox pattern with list autocomplete). The reader types a token's
// text or its id; ArrowDown and ArrowUp move through the matches (aria-activedescendant), Enter or
// a tap picks one, Escape closes the list and puts the current token back. Leaving the field with
// the exact text or id of a token picks it; any other text is put back to the current token.
import { el } from '../base/headlab-element.js';
import { localId } from '../base/ids.js';

/** Matches listed at a time: enough to find a token by a few letters, short enough for a phone's screen. */
export const TOKEN_MATCHES = 12;

export const TOKEN_COMBOBOX_CSS = /* css */ `
  .token-combobox { position: relative; display: inline-flex; flex-direction: column; max-width: 100%; }
  .token-combobox label { display: flex; flex-direction: column; gap: 0.2rem; }
  .token-combobox[hidden], .controls > label[hidden] { display: none; }
  .token-combobox input { font: inherit; width: 14em; max-width: 100%; min-height: 2.75rem; box-sizing: border-box; padding: 0 0.4rem;
    color: var(--hl-fg); background: var(--hl-control); border: 1px solid var(--hl-rule); border-radius: 4px; }
  .token-combobox input:focus-visible { outline: 3px solid var(--hl-focus); outline-offset: 1px; }
  .token-combobox [role="listbox"] { position: absolute; top: 100%; left: 0; z-index: 3; margin: 2px 0 0; padding: 0; list-style: none;
    width: max(100%, 14em); max-width: min(22em, calc(100vw - 2rem)); max-height: 16rem; overflow-y: auto; box-sizing: border-box;
    background: var(--hl-panel); color: var(--hl-fg); border: 1px solid var(--hl-rule); border-radius: 4px; }
  .token-combobox [role="listbox"][hidden] { display: none; }
  .token-combobox [role="option"] { display: flex; justify-content: space-between; gap: 0.6rem; align-items: center; min-height: 2.75rem;
    padding: 0 0.5rem; cursor: pointer; }
  .token-combobox [role="option"] .text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre; overflow: hidden;
    text-overflow: ellipsis; }
  .token-combobox [role="option"] .id { color: var(--hl-muted); font-variant-numeric: tabular-nums; }
  .token-combobox [role="option"][aria-selected="true"] { background: color-mix(in srgb, var(--hl-focus) 22%, transparent); }
  .token-combobox .none { padding: 0.6rem 0.5rem; color: var(--hl-muted); font-style: italic; }
`;

/**
 * The ids of tokens matching `query` among `names` (index = id; null: the vocabulary has no names,
 * so only ids match), at most `limit`: the id the query spells first, then names equal to it,
 * then names starting with it, then names containing it (each group by id; case is ignored after
 * the exact ones).
 */
export function matchTokens(query: string, names: readonly string[] | null, vocab: number, limit = TOKEN_MATCHES): number[] {
  const out: number[] = [];
  const seen = new Set<number>();
  const add = (t: number) => {
    if (out.length < limit && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  };
  const trimmed = query.trim();
  if (/^\d+$/.test(trimmed) && Number(trimmed) < vocab) add(Number(trimmed));
  if (!names || query === '') {
    if (query === '') for (let t = 0; t < vocab && out.length < limit; t++) add(t);
    return out;
  }
  const lower = query.toLowerCase();
  for (let t = 0; t < names.length && out.length < limit; t++) if (names[t] === query) add(t);
  for (let t = 0; t < names.length && out.length < limit; t++) if (names[t].toLowerCase().startsWith(lower)) add(t);
  for (let t = 0; t < names.length && out.length < limit; t++) if (names[t].toLowerCase().includes(lower)) add(t);
  return out;
}

/** The token whose exact text or id `text` is, or null. */
function exactToken(text: string, names: readonly string[] | null, vocab: number): number | null {
  if (names) {
    const t = names.indexOf(text);
    if (t >= 0 && t < vocab) return t;
  }
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) && Number(trimmed) < vocab ? Number(trimmed) : null;
}

export class TokenCombobox {
  readonly element: HTMLDivElement;
  readonly input: HTMLInputElement;
  private readonly list: HTMLUListElement;
  private names: readonly string[] | null = null;
  private vocab = 0;
  private value = 0;
  private matches: number[] = [];
  private active = -1;
  private expanded = false;
  private readonly id: string;

  /**
   * `label` names the field (its <label>); `onPick(id)` runs when the reader picks a token other
   * than the current one. `listen(target, type, handler)` is the owning element's listener helper;
   * `owner`, that element (its ids are counted per element: base/ids.ts).
   */
  constructor(
    label: string,
    name: string,
    private readonly onPick: (token: number) => void,
    listen: (target: EventTarget, type: string, handler: (event: Event) => void) => void,
    owner: object,
  ) {
    this.id = localId(owner, 'token-combobox');
    this.input = el('input', {
      type: 'text',
      name,
      role: 'combobox',
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      'aria-autocomplete': 'list',
      'aria-expanded': 'false',
      'aria-controls': `${this.id}-list`,
    });
    this.list = el('ul', { role: 'listbox', id: `${this.id}-list`, 'aria-label': `${label}: matching tokens`, hidden: '' });
    const l = el('label', {}, label);
    l.append(this.input);
    this.element = el('div', { class: 'token-combobox' });
    this.element.append(l, this.list);
    listen(this.input, 'input', () => this.open());
    listen(this.input, 'focus', () => this.input.select());
    listen(this.input, 'keydown', (e) => this.key(e as KeyboardEvent));
    listen(this.input, 'blur', () => this.leave());
    // pointerdown, not click: the input keeps its focus (no blur before the pick), on touch too.
    listen(this.list, 'pointerdown', (e) => {
      const option = (e.target as Element).closest('[role="option"]');
      if (!option) return;
      e.preventDefault();
      this.pick(Number((option as HTMLElement).dataset.token));
    });
  }

  /** Shows `value` of a vocabulary of `vocab` tokens named `names` (null: ids only). */
  set(names: readonly string[] | null, vocab: number, value: number): void {
    this.names = names;
    this.vocab = vocab;
    this.value = value;
    // Never under the reader's typing: the field shows the token once they leave it.
    if ((this.input.getRootNode() as Document | ShadowRoot).activeElement !== this.input) this.input.value = this.text(value);
  }

  private text(t: number): string {
    return this.names?.[t] ?? String(t);
  }

  private open(): void {
    this.matches = matchTokens(this.input.value, this.names, this.vocab);
    this.active = this.matches.length ? 0 : -1;
    this.expanded = true;
    this.draw();
  }

  private close(): void {
    this.matches = [];
    this.active = -1;
    this.expanded = false;
    this.draw();
  }

  private draw(): void {
    this.list.replaceChildren(
      ...this.matches.map((t, i) => {
        const option = el('li', {
          role: 'option',
          id: `${this.id}-${t}`,
          'aria-selected': String(i === this.active),
          'data-token': String(t),
        });
        option.append(el('span', { class: 'text' }, this.text(t)), el('span', { class: 'id' }, String(t)));
        return option;
      }),
    );
    if (this.expanded && !this.matches.length) this.list.append(el('li', { class: 'none', role: 'presentation' }, 'No token matches'));
    this.list.hidden = !this.expanded;
    this.input.setAttribute('aria-expanded', String(this.expanded));
    if (this.active >= 0) {
      this.input.setAttribute('aria-activedescendant', `${this.id}-${this.matches[this.active]}`);
      this.list.children[this.active]?.scrollIntoView?.({ block: 'nearest' });
    } else this.input.removeAttribute('aria-activedescendant');
  }

  private key(e: KeyboardEvent): void {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!this.expanded) {
        this.open();
        return;
      }
      if (!this.matches.length) return;
      const step = e.key === 'ArrowDown' ? 1 : -1;
      this.active = (this.active + step + this.matches.length) % this.matches.length;
      this.draw();
    } else if (e.key === 'Enter') {
      if (!this.expanded) return;
      e.preventDefault();
      if (this.active >= 0) this.pick(this.matches[this.active]);
    } else if (e.key === 'Escape') {
      if (!this.expanded && this.input.value === this.text(this.value)) return;
      e.preventDefault();
      this.input.value = this.text(this.value);
      this.close();
    }
  }

  private leave(): void {
    const exact = exactToken(this.input.value, this.names, this.vocab);
    this.close();
    if (exact !== null && exact !== this.value) this.pick(exact);
    else this.input.value = this.text(this.value);
  }

  private pick(t: number): void {
    this.close();
    this.input.value = this.text(t);
    if (t === this.value) return;
    this.value = t;
    this.onPick(t);
  }
}
