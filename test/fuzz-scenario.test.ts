/**
 * Random bytes, random JSON and mutated shipped scenarios thrown at parseScenario and at the plan
 * command's path (load → resolve → plan): each either yields a scenario / a PlanResult whose numbers are
 * finite, or throws UserError — never a TypeError, RangeError or a hang.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { planScenario } from '../src/commands/plan-run.js';
import { UserError } from '../src/io/errors.js';
import { parseScenario } from '../src/io/load-scenario.js';
import { numbersIn } from './helpers/arbitraries.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-fuzz-scenario-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Reproducible (VRAMPLAN_FC_SEED explores others); a shrink never runs away with the suite.
fc.configureGlobal({
  seed: Number(process.env.VRAMPLAN_FC_SEED ?? 20261121),
  interruptAfterTimeLimit: 8_000,
  markInterruptAsFailure: false,
  endOnFailure: true,
});

const dir = new URL('../scenarios/', import.meta.url);
const shipped = readdirSync(dir)
  .filter((f) => /\.(ya?ml|json)$/.test(f) && f !== 'scenario.schema.json')
  .map((f) => ({ file: f, data: parseYaml(readFileSync(new URL(f, dir), 'utf8')) as unknown }));
// bench-everything searches every GPU (seconds per plan); it is fuzzed through the parser only.
const plannable = shipped.filter((s) => !s.file.startsWith('bench-'));

// Hang detectors, not speed checks: far above the idle times, so a loaded machine passes and a loop does not.
const PARSE_LIMIT_MS = 15_000;
const PLAN_LIMIT_MS = 90_000;

function finite(value: unknown): void {
  for (const [path, n] of numbersIn(value)) expect(Number.isFinite(n), `${path} = ${n}`).toBe(true);
}

/** Runs `f`; a UserError passes, anything else (or a slow run) fails. */
async function survives(f: () => unknown, limitMs: number): Promise<void> {
  const t0 = performance.now();
  try {
    finite(await f());
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    expect(e.message).not.toMatch(/(?<!received )undefined|\[object Object\]/);
  }
  expect(performance.now() - t0).toBeLessThan(limitMs);
}

/** Every path to a value in `v` (objects and arrays included), root excluded. */
function paths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...paths(x, [...at, i])]);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...paths(x, [...at, k])]);
  return [];
}

type Op = { kind: 'drop' } | { kind: 'set'; value: unknown } | { kind: 'scale'; by: number };

/** A copy of `data` with the value at `path` dropped, replaced or (if a number) scaled. */
function mutate(data: unknown, path: (string | number)[], op: Op): unknown {
  const copy = structuredClone(data);
  let parent = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
  const key = path.at(-1)!;
  if (op.kind === 'drop') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (op.kind === 'set') parent[key] = op.value;
  else parent[key] = typeof parent[key] === 'number' ? parent[key] * op.by : op.by;
  return copy;
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.constant<Op>({ kind: 'drop' }),
  fc.constantFrom(0, -1, -1e12, 1e12, 0.5, 2).map((by): Op => ({ kind: 'scale', by })),
  // Another type, or a hostile value of the same one.
  fc
    .oneof(
      fc.constantFrom(
        'long',
        '',
        'constructor',
        '__proto__',
        null,
        true,
        [],
        {},
        [1],
        { a: 1 },
        1.5,
        -4,
        0,
        1e308,
      ),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map((value): Op => ({ kind: 'set', value })),
);

/** A shipped scenario with one value (anywhere) mutated, or up to three at once. */
const mutated = (pool: typeof shipped) =>
  fc
    .record({
      s: fc.constantFrom(...pool),
      edits: fc.array(fc.record({ pick: fc.nat(), op }), { minLength: 1, maxLength: 3 }),
    })
    .map(({ s, edits }) => {
      let data = s.data;
      for (const e of edits) {
        const all = paths(data);
        if (all.length > 0) data = mutate(data, all[e.pick % all.length]!, e.op);
      }
      return { file: s.file, data };
    });

describe('parseScenario on hostile text', () => {
  it('random bytes, as YAML and as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), fc.boolean(), (bytes, json) =>
        survives(
          () => parseScenario(json ? 'x.json' : 'x.yaml', Buffer.from(bytes).toString('utf8')),
          PARSE_LIMIT_MS,
        ),
      ),
      { numRuns: 300 },
    );
  });

  it('random JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.boolean(), (v, json) =>
        survives(
          () => parseScenario(json ? 'x.json' : 'x.yaml', JSON.stringify(v) ?? ''),
          PARSE_LIMIT_MS,
        ),
      ),
      { numRuns: 300 },
    );
  });

  it('random text that looks like YAML', async () => {
    const line = fc.tuple(
      fc.constantFrom('', '  ', '\t', '- '),
      fc.string({ maxLength: 12 }),
      fc.constantFrom(': ', ':', ' - ', ''),
      fc.string({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 12 }), (lines) =>
        survives(
          () => parseScenario('x.yaml', lines.map((l) => l.join('')).join('\n')),
          PARSE_LIMIT_MS,
        ),
      ),
      { numRuns: 300 },
    );
  });

  it('shipped scenarios with values dropped, retyped or scaled to 0 / negative / 1e12', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(shipped), ({ file, data }) =>
        survives(
          () => parseScenario(file.replace(/\.ya?ml$/, '.json'), JSON.stringify(data)),
          PARSE_LIMIT_MS,
        ),
      ),
      { numRuns: 500 },
    );
  });

  it('shipped scenarios cut short', async () => {
    const texts = shipped.map((s) => readFileSync(new URL(s.file, dir), 'utf8'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...texts),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (t, f) =>
          survives(
            () => parseScenario('cut.yaml', t.slice(0, Math.floor(t.length * f))),
            PARSE_LIMIT_MS,
          ),
      ),
      { numRuns: 100 },
    );
  });
});

/** One numeric value of a plannable scenario scaled, or one key dropped: most still validate and plan. */
const nudged = fc
  .record({
    s: fc.constantFrom(...plannable),
    pick: fc.nat(),
    op: fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .constantFrom(0, -1, 0.1, 0.5, 2, 10, 1e3, 1e12)
          .map((by): Op => ({ kind: 'scale', by })),
      },
      { weight: 1, arbitrary: fc.constant<Op>({ kind: 'drop' }) },
    ),
  })
  .map(({ s, pick, op }) => {
    const all = paths(s.data).filter(
      (p) =>
        op.kind === 'drop' ||
        typeof p.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], s.data) ===
          'number',
    );
    return all.length > 0 ? mutate(s.data, all[pick % all.length]!, op) : s.data;
  });

describe('the plan command path on mutated scenarios', () => {
  let n = 0;
  const planned = (data: unknown) => {
    const path = join(tmp, `m${n++}.json`);
    writeFileSync(path, JSON.stringify(data));
    return survives(() => planScenario(path, { top: 3 }), PLAN_LIMIT_MS);
  };

  it('load → resolve ids → plan(), one value scaled to 0 / negative / 1e12 or a key dropped', async () => {
    await fc.assert(fc.asyncProperty(nudged, planned), { numRuns: 60 });
  });

  it('load → resolve ids → plan(), up to three values retyped, scaled or dropped', async () => {
    await fc.assert(
      fc.asyncProperty(mutated(plannable), ({ data }) => planned(data)),
      { numRuns: 40 },
    );
  });
});
