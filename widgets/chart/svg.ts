// Small SVG pieces drawn with attributes only (no style attribute: strict CSP).
// SVG here is decoration beside the numbers: always aria-hidden, the text carries the value.
const SVG_NS = 'http://www.w3.org/2000/svg';

export function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | number> = {},
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/**
 * One horizontal bar for a value in [−limit, limit] (or [0, limit] when `signed` is
 * false): width ∝ |value|, orange right of the axis for ≥ 0, blue left of it for < 0.
 */
export class Bar {
  readonly svg: SVGSVGElement;
  private readonly rect: SVGRectElement;

  constructor(
    private readonly limit: number,
    private readonly signed = false,
    private readonly width = 120,
    height = 14,
  ) {
    this.svg = svgEl('svg', { width, height, viewBox: `0 0 ${width} ${height}`, 'aria-hidden': 'true', class: 'bar', focusable: 'false' });
    this.rect = svgEl('rect', { x: 0, y: 1, height: height - 2, width: 0, rx: 2 });
    this.svg.append(this.rect);
    if (signed) this.svg.append(svgEl('line', { x1: width / 2, x2: width / 2, y1: 0, y2: height, class: 'axis' }));
  }

  update(value: number): void {
    const span = this.signed ? this.width / 2 : this.width;
    const length = Number.isFinite(value) ? Math.min(1, Math.abs(value) / this.limit) * span : 0;
    const origin = this.signed ? this.width / 2 : 0;
    this.rect.setAttribute('x', String(value < 0 ? origin - length : origin));
    this.rect.setAttribute('width', String(length));
    this.rect.setAttribute('class', value < 0 ? 'bar-neg' : 'bar-pos');
  }
}
