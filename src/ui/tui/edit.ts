/** Pure: the scenario knobs the explorer edits in place. applyEdit(scenario, edit) → scenario; no I/O. */
import { scenarioSchema, TRAIN_METHODS, type Scenario } from '../../schema/scenario.js';

export const KNOBS = [
  'model',
  'gpu',
  'count',
  'methods',
  'seq',
  'microBatch',
  'budget',
  'circuits',
] as const;
export type Knob = (typeof KNOBS)[number];

export const KNOB_LABEL: Record<Knob, string> = {
  model: 'model',
  gpu: 'GPU',
  count: 'GPU count (max)',
  methods: 'methods',
  seq: 'sequence length',
  microBatch: 'micro-batch',
  budget: 'budget (USD)',
  circuits: 'circuits',
};

type TrainMethod = (typeof TRAIN_METHODS)[number];

export type Edit =
  | { knob: 'model'; value: string }
  | { knob: 'gpu'; value: string }
  | { knob: 'count'; value: number }
  | { knob: 'methods'; value: TrainMethod[] }
  | { knob: 'seq'; value: number }
  | { knob: 'microBatch'; value: number | null }
  | { knob: 'budget'; value: number | null }
  | { knob: 'circuits'; value: string[] };

/** The knob's current value as the text the user edits. */
export function knobValue(s: Scenario, knob: Knob): string {
  const h = s.hardware;
  switch (knob) {
    case 'model':
      return s.model;
    case 'gpu':
      return (
        h.owned[0]?.gpu ??
        h.rent?.gpus?.join(',') ??
        (h.buy ? (h.buy.gpus === 'all' ? 'all' : h.buy.gpus.join(',')) : h.rent ? 'any offer' : '')
      );
    case 'count':
      return String(h.owned.length > 0 ? h.owned[0]!.count : h.counts.max);
    case 'methods':
      return s.job.kind === 'fine-tune' ? s.job.methods.join(',') : 'inference';
    case 'seq':
      return String(s.job.kind === 'fine-tune' ? s.job.seq : s.job.context);
    case 'microBatch':
      return s.job.kind === 'inference'
        ? String(s.job.concurrency)
        : (s.search.microBatches?.join(',') ?? 'any');
    case 'budget':
      return s.limits.budgetUsd === undefined ? 'none' : String(s.limits.budgetUsd);
    case 'circuits':
      return s.power.circuits.map((c) => (typeof c === 'string' ? c : c.id)).join(',') || 'none';
  }
}

// Any whole number: the scenario's validation (the CLI's) says which are allowed, in its own words.
const int = (t: string): number | null => (/^[-+]?\d+$/.test(t) ? Number(t) : null);
const ids = (t: string): string[] => t.split(/[,\s]+/).filter((x) => x !== '');

/** Parse what the user typed for a knob; errors say what is expected. */
export function parseEdit(knob: Knob, text: string): { edit: Edit } | { error: string } {
  const t = text.trim();
  const none = t === '' || t === 'none' || t === 'any';
  switch (knob) {
    case 'model':
    case 'gpu':
      return t === ''
        ? { error: `${KNOB_LABEL[knob]}: expected an id` }
        : { edit: { knob, value: t } };
    case 'count':
    case 'seq': {
      const n = int(t);
      return n !== null
        ? { edit: { knob, value: n } }
        : { error: `${KNOB_LABEL[knob]}: expected a whole number ≥ 1, got '${t}'` };
    }
    case 'microBatch': {
      if (none) return { edit: { knob, value: null } };
      const n = int(t);
      return n !== null
        ? { edit: { knob, value: n } }
        : { error: `micro-batch: expected a whole number ≥ 1 or 'any', got '${t}'` };
    }
    case 'budget': {
      if (none) return { edit: { knob, value: null } };
      const n = Number(t.replace(/^\$/, '').replace(/,/g, ''));
      return Number.isFinite(n)
        ? { edit: { knob, value: n } }
        : { error: `budget: expected dollars > 0 or 'none', got '${t}'` };
    }
    case 'methods': {
      const ms = ids(t);
      const bad = ms.find((m) => !(TRAIN_METHODS as readonly string[]).includes(m));
      if (ms.length === 0 || bad !== undefined)
        return {
          error: `methods: expected a list of ${TRAIN_METHODS.join(', ')}, got '${bad ?? t}'`,
        };
      return { edit: { knob, value: [...new Set(ms)] as TrainMethod[] } };
    }
    case 'circuits':
      return { edit: { knob, value: none ? [] : ids(t) } };
  }
}

/** The scenario with one knob changed. Knobs that make no sense for the job (methods for inference) are ignored. */
export function applyEdit(s: Scenario, e: Edit): Scenario {
  const h = s.hardware;
  switch (e.knob) {
    case 'model':
      return { ...s, model: e.value };
    case 'gpu':
      if (h.owned.length > 0)
        return {
          ...s,
          hardware: { ...h, owned: [{ ...h.owned[0]!, gpu: e.value }, ...h.owned.slice(1)] },
        };
      if (h.rent)
        return {
          ...s,
          hardware: { ...h, rent: { ...h.rent, gpus: [e.value], offers: undefined } },
        };
      if (h.buy) return { ...s, hardware: { ...h, buy: { ...h.buy, gpus: [e.value] } } };
      return { ...s, hardware: { ...h, owned: [{ gpu: e.value, count: h.counts.max }] } };
    case 'count': {
      const counts = { min: Math.min(h.counts.min, e.value), max: e.value };
      const owned =
        h.owned.length > 0 ? [{ ...h.owned[0]!, count: e.value }, ...h.owned.slice(1)] : h.owned;
      return { ...s, hardware: { ...h, owned, counts } };
    }
    case 'methods':
      return s.job.kind === 'fine-tune' ? { ...s, job: { ...s.job, methods: e.value } } : s;
    case 'seq':
      return {
        ...s,
        job:
          s.job.kind === 'fine-tune' ? { ...s.job, seq: e.value } : { ...s.job, context: e.value },
      };
    case 'microBatch':
      if (s.job.kind === 'inference')
        return e.value === null ? s : { ...s, job: { ...s.job, concurrency: e.value } };
      return {
        ...s,
        search: { ...s.search, microBatches: e.value === null ? undefined : [e.value] },
      };
    case 'budget':
      return { ...s, limits: { ...s.limits, budgetUsd: e.value ?? undefined } };
    case 'circuits':
      return { ...s, power: { ...s.power, circuits: e.value } };
  }
}

/** ←/→ on a numeric knob: halve/double sequence, micro-batch and budget; ±1 GPU. null when the knob has no step. */
export function stepEdit(s: Scenario, knob: Knob, dir: 1 | -1): Edit | null {
  const cur = Number(knobValue(s, knob));
  switch (knob) {
    case 'count':
      return { knob, value: Math.max(1, cur + dir) };
    case 'seq':
      return { knob, value: Math.max(1, dir > 0 ? cur * 2 : Math.floor(cur / 2)) };
    case 'microBatch':
      return Number.isFinite(cur)
        ? { knob, value: Math.max(1, dir > 0 ? cur * 2 : Math.floor(cur / 2)) }
        : { knob, value: 1 };
    case 'budget':
      return Number.isFinite(cur) ? { knob, value: dir > 0 ? cur * 2 : cur / 2 } : null;
    default:
      return null;
  }
}

/** The schema's complaint about an edited scenario, or null when it is valid. */
export function scenarioProblem(s: Scenario): string | null {
  const r = scenarioSchema.safeParse(s);
  if (r.success) return null;
  const i = r.error.issues[0]!;
  return `${i.path.map(String).join('.') || '(root)'}: ${i.message}`;
}
