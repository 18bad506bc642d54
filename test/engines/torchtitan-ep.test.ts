// torchtitan expert parallelism for training: the --ep contract, the memory it changes, launch and --from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { onEngine } from '../../src/core/engines/index.js';
import { emitTorchtitan, TORCHTITAN_FILE } from '../../src/core/engines/torchtitan/launch.js';
import { parseTorchtitanRecipe } from '../../src/core/engines/torchtitan/from.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { estimateTime } from '../../src/core/time/index.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const BASE = { framework: 'torchtitan', method: 'full', weights: 'fp32', zero: 3 };
const GiB = 1024 ** 3;

const input = (model: string, flags: Record<string, unknown>): LaunchInput =>
  launchInputOf(model, 'h100-sxm', { ...BASE, ...flags }, { gradAccum: 2 });

describe('--ep for training', () => {
  it('is accepted with --framework torchtitan and refused by the other training engines', () => {
    expect(optionsFromFlags({ ...BASE, gpus: 8, ep: 8 }).ep).toBe(8);
    expect(() =>
      optionsFromFlags({ framework: 'hf-fsdp', method: 'full', zero: 3, gpus: 8, ep: 8 }),
    ).toThrow(
      /^--ep: got 8; expected only with --method inference, or training with --framework torchtitan .*--framework hf-fsdp has no expert parallelism for training$/,
    );
  });

  it('must divide dp_shard x cp x tp (torchtitan ParallelDims._validate)', () => {
    expect(() => optionsFromFlags({ ...BASE, gpus: 8, ep: 3 })).toThrow(
      /^--ep: got 3; expected a divisor of dp_shard x cp x tp = --gpus \/ --pp = 8 /,
    );
    // pp is outside the sparse region: 16 GPUs at pp 2 leave 8 ranks for ep.
    expect(() => optionsFromFlags({ ...BASE, gpus: 16, pp: 2, ep: 16 })).toThrow(/= 8 /);
    expect(optionsFromFlags({ ...BASE, gpus: 16, tp: 2, ep: 16 }).ep).toBe(16);
  });

  it('is refused on a dense model and where it does not divide the routed experts', () => {
    expect(launchBlocker(input('llama-3.1-8b', { gpus: 8, ep: 8 }))).toMatch(
      /rule torchtitan-ep-needs-moe/,
    );
    // Qwen3-30B-A3B has 128 routed experts: 12 GPUs at ep 12 pass the mesh, not the dispatch.
    expect(launchBlocker(input('qwen3-30b-a3b', { gpus: 12, ep: 12 }))).toMatch(
      /rule torchtitan-ep-divides-experts/,
    );
  });
});

describe('torchtitan EP memory', () => {
  const est = (ep: number) =>
    buildEstimate(
      resolveModel('qwen3-30b-a3b'),
      onEngine(
        optionsFromFlags({ ...BASE, gpus: 8, ep, seq: 4096, batch: 1, checkpointing: 'full' }),
        'torchtitan',
      ),
      findGpu('h100-sxm'),
    );
  const forward = (ep: number) => est(ep).phases.find((p) => p.phase === 'forward')!.parts;

  it('keeps the sharded weights and optimizer states (ep x efsdp covers the same ranks)', () => {
    expect(forward(8).weights).toBe(forward(1).weights);
    expect(forward(8).optimizer).toBe(forward(1).optimizer);
  });

  it('gathers a layer with a 1/ep share of its routed experts', () => {
    // Two gathered Qwen3-30B-A3B layers: 604M routed-expert parameters each, 1.1 GiB in bf16 whole, 0.14 GiB at ep 8.
    const saved = forward(1).buffers - forward(8).buffers;
    expect(saved).toBeGreaterThan(1.8 * GiB);
    expect(saved).toBeLessThan(2.2 * GiB);
  });
});

describe('torchtitan EP launch and --from', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vramplan-ttep-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('writes parallelism.expert_parallel_degree and reads it back', () => {
    const x = input('qwen3-30b-a3b', { gpus: 8, ep: 8, seq: 4096 });
    const out = emitTorchtitan(x);
    if (!out.ok) throw new Error(out.reason);
    const py = out.files.find((f) => f.path === TORCHTITAN_FILE)!.content;
    expect(py).toContain('config.parallelism.expert_parallel_degree = 8');
    const doc = parseTorchtitanRecipe(py) as {
      torchtitan_recipe: { config: Record<string, unknown> };
    };
    expect(doc.torchtitan_recipe.config.parallelism).toMatchObject({ expert_parallel_degree: 8 });
    for (const f of buildLaunch(x).files) {
      mkdirSync(dirname(join(tmp, f.path)), { recursive: true });
      writeFileSync(join(tmp, f.path), f.content);
    }
    const back = optionsFromFlags(mergeFlags(readFromConfig(tmp), {}));
    expect(back.ep).toBe(8);
    expect(back.gpus).toBe(8);
  });

  it('writes no expert_parallel_degree without --ep', () => {
    const out = emitTorchtitan(input('qwen3-30b-a3b', { gpus: 8 }));
    if (!out.ok) throw new Error(out.reason);
    expect(out.files.find((f) => f.path === TORCHTITAN_FILE)!.content).not.toContain(
      'expert_parallel',
    );
  });
});

describe('torchtitan EP time', () => {
  const time = (ep: number, checkpointing: string, gpus = 8) =>
    estimateTime(
      resolveModel('qwen3-30b-a3b'),
      onEngine(
        optionsFromFlags({ ...BASE, gpus, ep, seq: 4096, batch: 2, checkpointing }),
        'torchtitan',
      ),
      findGpu('h100-sxm'),
      defaultTimeOptions(1),
    );
  const phase = (r: ReturnType<typeof time>, p: string) =>
    r.phases.find((x) => x.phase === p)?.seconds ?? 0;

  it('adds the all-to-alls: 6 per MoE layer with full recompute, 4 with selective (SAC saves them)', () => {
    expect(phase(time(1, 'full'), 'expert-parallel')).toBe(0);
    const full = phase(time(8, 'full'), 'expert-parallel');
    const sel = phase(time(8, 'selective'), 'expert-parallel');
    // 48 layers x 8192 tokens x top-8 x 2048 x 2 B x 7/8 a pass, at the H100 node's NVLink rate.
    expect(full).toBeGreaterThan(0.1);
    expect(full / sel).toBeGreaterThan(1.45);
    expect(full / sel).toBeLessThan(1.55);
  });

  it("moves the experts' FSDP collectives to the efsdp group: none at ep = GPUs", () => {
    const gather = (ep: number) => phase(time(ep, 'full'), 'parameter-gather');
    expect(gather(8)).toBeLessThan(gather(1) / 10);
    // 16 GPUs at ep 8: the experts still gather over two ranks.
    expect(phase(time(8, 'full', 16), 'parameter-gather')).toBeGreaterThan(gather(8));
  });
});
