// Numbers about an attention-only transformer for <headlab-value> in the prose (docs/reading.md,
// "Numbers bound to the model"): read from the `headlab model analyze` document of the model on the
// page (formats/transformer.d.ts), so a sentence cannot contradict the figures after the reader trains
// a new model. The source element's boundValue(name) returns transformerBoundValue(analysis, name).
//
// Heads are named by layer and head index from 0, as TransformerLens names them (head 1.2 = layer 1,
// head 2). "Best" is the largest score; ties go to the lowest (layer, head).
//
// Names:
//   layers, heads                          n_layers, n_heads
//   in_context_loss                        mean next-token loss on the repeated half (nats; analysis.induction)
//   previous_token.{layer,head,score}      the head with the largest previous-token score
//   induction.{layer,head,score}           the head with the largest induction score
//   induction.layer{L}.min                 the smallest induction score among layer L's heads
//   induction.others.max                   the largest induction score outside the best head's layer
//   ablation.clean_loss                    in-context loss without ablation (analysis.ablation, its mode)
//   ablation.max.{layer,head,loss}         the head whose ablation raises the loss most, and that loss
//   ablation.layer{L}.{min,max}            the smallest / largest loss with one of layer L's heads ablated
//   ablation.induction                     the loss with the best induction head ablated
//   ablation.max.ratio                     ablation.max.loss / ablation.clean_loss
import type { TransformerAnalysisFile } from '../../formats/transformer.js';
import type { BoundValue } from '../chart/format.js';

interface Best {
  layer: number;
  head: number;
  value: number;
}

/** The (layer, head) with the largest entry of an L × H table (ties: the first in row-major order). */
export function bestHead(table: number[][]): Best {
  let best: Best = { layer: 0, head: 0, value: -Infinity };
  table.forEach((row, layer) =>
    row.forEach((value, head) => {
      if (value > best.value) best = { layer, head, value };
    }),
  );
  return best;
}

export function transformerBoundValue(
  a: Pick<TransformerAnalysisFile, 'induction' | 'ablation'> | null | undefined,
  name: string,
): BoundValue | undefined {
  // No repeated-sequence analyses (an analysis asked with sequences 0): nothing to bind.
  if (!a || !a.induction || !a.ablation) return undefined;
  const count = (value: number): BoundValue => ({ value, kind: 'count' });
  const number = (value: number): BoundValue => ({ value, kind: 'number' });
  const loss = (value: number): BoundValue => ({ value, kind: 'loss' });
  const mass = (value: number): BoundValue => ({ value, kind: 'fraction' });
  const { previous_token: prev, induction: ind } = a.induction;
  const abl = a.ablation.loss;
  const layer = /^(induction|ablation)\.layer([0-9])\.(min|max)$/.exec(name);
  if (layer) {
    const row = (layer[1] === 'induction' ? ind : abl)[Number(layer[2])];
    if (!row) return undefined;
    const v = layer[3] === 'min' ? Math.min(...row) : Math.max(...row);
    return layer[1] === 'induction' ? mass(v) : loss(v);
  }
  const part = /^(previous_token|induction|ablation\.max)\.(layer|head|score|loss|ratio)$/.exec(name);
  if (part) {
    const best = bestHead(part[1] === 'previous_token' ? prev : part[1] === 'induction' ? ind : abl);
    switch (part[2]) {
      case 'layer':
        return count(best.layer);
      case 'head':
        return count(best.head);
      case 'score':
        return part[1] === 'ablation.max' ? undefined : mass(best.value);
      case 'loss':
        return part[1] === 'ablation.max' ? loss(best.value) : undefined;
      case 'ratio':
        return part[1] === 'ablation.max' ? number(best.value / a.ablation.clean_loss) : undefined;
    }
  }
  switch (name) {
    case 'layers':
      return count(ind.length);
    case 'heads':
      return count(ind[0]?.length ?? 0);
    case 'in_context_loss':
      return loss(a.induction.in_context_loss);
    case 'ablation.clean_loss':
      return loss(a.ablation.clean_loss);
    case 'ablation.induction': {
      const best = bestHead(ind);
      return loss(abl[best.layer][best.head]);
    }
    case 'induction.others.max': {
      const best = bestHead(ind);
      const others = ind.flatMap((row, l) => (l === best.layer ? [] : row));
      return others.length ? mass(Math.max(...others)) : undefined;
    }
    default:
      return undefined;
  }
}
