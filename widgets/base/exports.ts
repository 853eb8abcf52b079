// The one export menu every widget has: a "Download" disclosure (one Tab stop while closed)
// listing "<figure>: SVG PNG" per figure and the data as JSON (docs/reading.md, "Download menu"),
// and what its buttons download: a figure's Scene as SVG or PNG, the widget's data as JSON.
import { downloadBlob, type Scene } from '../chart/scene.js';
import { el } from './dom.js';
import { WidgetInputError } from './errors.js';

/** A figure a widget exports as SVG and PNG (and draws from the same Scene on the page). */
export interface WidgetFigure {
  /** File-name part and `data-export` key, e.g. "loss" → "<stem>-loss.svg". */
  name: string;
  /** What the figure is, for button labels, e.g. "Loss curve". */
  label: string;
  /** The figure as shown now. */
  scene(): Scene;
}

/** The figure `name` of `figures` (default: the first); an author-facing error when there is none. */
export function figureNamed(figures: WidgetFigure[], name?: string): WidgetFigure {
  const figure = name === undefined ? figures[0] : figures.find((f) => f.name === name);
  if (!figure) throw new WidgetInputError(name === undefined ? 'this widget has no figure to export' : `no figure named "${name}"`);
  return figure;
}

/** What a download needs from its widget (its export methods and file names). */
export interface ExportSource {
  figures(): WidgetFigure[];
  exportJson(): string;
  exportSvg(name?: string): string;
  exportPng(name?: string): Promise<Blob>;
  /** File names start with this, e.g. "feature-recovery". */
  stem: string;
  /** Name of the JSON download. */
  jsonFile: string;
}

/** Offers a figure (svg/png, "<stem>-<figure>.<format>") or the data (json) as a download; throws what went wrong. */
export async function downloadExport(source: ExportSource, format: ExportFormat, name?: string): Promise<void> {
  if (format === 'json') {
    downloadBlob(new Blob([source.exportJson()], { type: 'application/json' }), source.jsonFile);
    return;
  }
  const figure = figureNamed(source.figures(), name);
  const blob =
    format === 'svg' ? new Blob([source.exportSvg(figure.name)], { type: 'image/svg+xml' }) : await source.exportPng(figure.name);
  downloadBlob(blob, `${source.stem}-${figure.name}.${format}`);
}

export type ExportFormat = 'svg' | 'png' | 'json';

export interface ExportMenuOptions {
  /** Only these figures (by name); default: all. */
  only?: string[];
  /** Offer the JSON data (default true). */
  json?: boolean;
  /** Label of the JSON button (default "Data (JSON)"). */
  jsonLabel?: string;
}

/** What the menu needs from its widget. */
export interface ExportMenuHost {
  figures(): { name: string; label: string }[];
  download(format: ExportFormat, name?: string): void;
  /** Adds a listener the widget removes when it is detached. */
  listen(target: EventTarget, type: string, handler: (event: Event) => void): void;
}

/**
 * Builds the menu. Buttons carry data-export="<name>.<format>". Escape closes the menu and
 * returns focus to its button; `status` (beside the menu, outside it, so it stays visible once
 * the menu is closed) is where the widget reports a failed download.
 */
export function exportMenu(
  host: ExportMenuHost,
  { only, json = true, jsonLabel = 'Data (JSON)' }: ExportMenuOptions = {},
): { wrap: HTMLDivElement; status: HTMLElement } {
  const wrap = el('div', { class: 'exports' });
  const menu = el('details', { class: 'export-menu' });
  const toggle = el('summary', { 'aria-label': 'Download this figure or its data' });
  toggle.append(el('span', { 'aria-hidden': 'true' }, 'Download'));
  const list = el('div', { class: 'export-list', role: 'group', 'aria-label': 'Downloads' });
  // Filled now and again whenever the menu opens: a widget's figures can appear after build()
  // (a figure of a trained model exists only once training has run).
  let listed = '';
  const fill = (): void => {
    const figures = host.figures().filter((f) => !only || only.includes(f.name));
    const key = figures.map((f) => `${f.name}\u0000${f.label}`).join('\u0001');
    if (listed === key && list.childElementCount) return;
    listed = key;
    list.replaceChildren();
    for (const f of figures) {
      const label = f.label.replace(/_/g, '');
      const group = el('span', { class: 'export-group' });
      group.append(el('span', { class: 'export-label' }, label));
      for (const format of ['svg', 'png'] as const) {
        const b = el(
          'button',
          { type: 'button', 'aria-label': `Download ${label} as ${format.toUpperCase()}`, 'data-export': `${f.name}.${format}` },
          format.toUpperCase(),
        );
        host.listen(b, 'click', () => {
          host.download(format, f.name);
        });
        group.append(b);
      }
      list.append(group);
    }
    if (json) {
      const b = el('button', { type: 'button', 'data-export': 'data.json' }, jsonLabel);
      host.listen(b, 'click', () => {
        host.download('json');
      });
      list.append(b);
    }
  };
  fill();
  host.listen(menu, 'toggle', () => {
    if (menu.open) fill();
  });
  menu.append(toggle, list);
  host.listen(menu, 'keydown', (event) => {
    if ((event as KeyboardEvent).key !== 'Escape' || !menu.open) return;
    menu.open = false;
    toggle.focus();
    event.stopPropagation();
  });
  const status = el('span', { class: 'export-status', role: 'status' });
  wrap.append(menu, status);
  return { wrap, status };
}
