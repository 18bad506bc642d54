// torchtitan launcher: recipe values against the plan, the torchrun line, pins, blockers, rules, round trip.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { onEngine } from '../../src/core/engines/index.js';
import {
  emitTorchtitan,
  pyLiteral,
  TORCHTITAN_FILE,
  TORCHTITAN_PINS,
} from '../../src/core/engines/torchtitan/launch.js';
import { TORCHTITAN_RULES } from '../../src/core/engines/torchtitan/rules.js';
import { parseTorchtitanRecipe } from '../../src/core/engines/torchtitan/from.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const BASE = { framework: 'torchtitan', method: 'full', weights: 'fp32', zero: 3 };

const input = (model: string, flags: Record<string, unknown>, extra: Partial<LaunchInput> = {}) =>
  launchInputOf(model, 'h100-sxm', { ...BASE, ...flags }, extra);

function files(x: LaunchInput): Record<string, string> {
  const out = emitTorchtitan(x);
  if (!out.ok) throw new Error(out.reason);
  return Object.fromEntries(out.files.map((f) => [f.path, f.content]));
}

/** The recipe's config.<path> assignments as parsed values. */
function recipe(x: LaunchInput): Record<string, Record<string, unknown>> {
  const doc = parseTorchtitanRecipe(files(x)[TORCHTITAN_FILE]!);
  return (doc.torchtitan_recipe as { config: Record<string, Record<string, unknown>> }).config;
}

describe('torchtitan recipe', () => {
  it('writes the plan: tokens per micro-batch and step, degrees that multiply to the GPU count', () => {
    const x = input('llama-3.1-8b', {
      gpus: 16,
      tp: 2,
      cp: 2,
      batch: 2,
      seq: 4096,
      checkpointing: 'selective',
    });
    const c = recipe(x);
    const t = c.training!;
    const p = c.parallelism!;
    // torchtitan 0.3.0 TrainingConfig: local_batch_size per DP rank, global_batch_size, seq_len.
    expect(t.local_batch_size).toBe(2);
    expect(t.seq_len).toBe(4096);
    // global = micro * accum * dp_shard (sequences)
    expect(t.global_batch_size).toBe(2 * 4 * 4);
    expect(p.data_parallel_shard_degree).toBe(4);
    expect(
      (p.data_parallel_shard_degree as number) *
        (p.tensor_parallel_degree as number) *
        (p.pipeline_parallel_degree as number) *
        (p.context_parallel_degree as number),
    ).toBe(16);
    expect(p.enable_sequence_parallel).toBe(true);
    expect(t.mixed_precision_param).toBe('bfloat16');
    expect(t.dtype).toBe('float32');
    expect(t.enable_cpu_offload).toBe(false);
    expect(c.activation_checkpoint).toEqual({ expr: 'SelectiveAC.Config()' });
    expect(c.model_spec).toEqual({ expr: 'model_registry("8B", attn_backend="flex")' });
    expect(c.checkpoint).toMatchObject({
      enable: true,
      initial_load_in_hf: true,
      initial_load_path: { expr: 'HF_ASSETS' },
    });
    expect(c.hf_assets_path).toEqual({ expr: 'HF_ASSETS' });
    const out = emitTorchtitan(x);
    expect(out.ok && out.notes.some((n) => /loss parallel/.test(n))).toBe(true);
  });

  it('maps checkpointing, offload and PP (micro-batches through the schedule, CUDA graphs off)', () => {
    const full = recipe(
      input('qwen3-8b', { gpus: 8, checkpointing: 'full', offload: 'optimizer+params' }),
    );
    expect(full.activation_checkpoint).toEqual({ expr: 'FullAC.Config()' });
    expect(full.training!.enable_cpu_offload).toBe(true);
    expect(full.model_spec).toEqual({ expr: 'model_registry("8B", attn_backend="flex")' });
    const none = recipe(input('llama-3.1-8b', { gpus: 4 }));
    expect(none.activation_checkpoint).toBeNull();
    const pp = recipe(input('llama-3.1-70b', { gpus: 16, pp: 4, tp: 2 }));
    // The plan's 4 micro-batches of 1 run through the pipeline: local batch 4, micro-batches of 1.
    expect(pp.training!.local_batch_size).toBe(4);
    expect(pp.parallelism!.pipeline_parallel_microbatch_size).toBe(1);
    expect(pp.training!.disable_cuda_graphs).toBe(true);
    expect(pp.parallelism!.data_parallel_shard_degree).toBe(2);
  });

  it('maps every dense Qwen3 catalog model to the registry flavor of its size (qwen3/__init__.py qwen3_configs)', () => {
    // torchtitan b5bcd76 qwen3_configs: 0.6B, 1.7B, 4B, 8B, 14B, 32B; each flavor's dim, layers, heads, kv heads,
    // hidden dim and tying match the catalog config.json of the same size.
    for (const [id, flavor] of [
      ['qwen3-1.7b', '1.7B'],
      ['qwen3-4b', '4B'],
      ['qwen3-14b', '14B'],
    ] as const) {
      const x = input(id, { gpus: 8 });
      expect(launchBlocker(x), id).toBeNull();
      expect(recipe(x).model_spec).toEqual({
        expr: `model_registry("${flavor}", attn_backend="flex")`,
      });
    }
  });

  it('imports from the family recipe and writes Python literals', () => {
    const text = files(input('qwen3-0.6b', { gpus: 2 }))[TORCHTITAN_FILE]!;
    expect(text).toContain('from torchtitan.models.qwen3.config_registry import qwen3_14b');
    expect(text).toContain('    config = qwen3_14b()');
    expect(text).toMatch(/^HF_MODEL = "Qwen\/Qwen3-0\.6B"$/m);
    expect(pyLiteral('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(pyLiteral(true)).toBe('True');
    expect(pyLiteral(null)).toBe('None');
    expect(pyLiteral(2e-5)).toBe('0.00002');
  });
});

/**
 * HF_ASSETS as Python computes it for the recipe imported from `folder` (str(Path(__file__).resolve().parent
 * / "assets" / "hf" / name)); the test fails on any other form of the line.
 */
function hfAssets(text: string, folder: string): string {
  const m = /^HF_ASSETS = str\(Path\(__file__\)\.resolve\(\)\.parent((?: \/ "[^"]+")+)\)$/m.exec(
    text,
  );
  if (!m) throw new Error('no HF_ASSETS line of the expected form');
  const parts = [...m[1]!.matchAll(/"([^"]+)"/g)].map((p) => p[1]!);
  return join(folder, ...parts);
}

describe('torchtitan checkpoint paths and steps, read as torchtitan reads them', () => {
  it('initial_load_path passes the checkpointer check (absolute or remote: TT base.py L349-L358)', () => {
    const text = files(input('llama-3.1-8b', { gpus: 8 }))[TORCHTITAN_FILE]!;
    expect(text).toContain('from pathlib import Path');
    const c = recipe(input('llama-3.1-8b', { gpus: 8 }));
    expect(c.checkpoint!.initial_load_path).toEqual({ expr: 'HF_ASSETS' });
    // launch.sh puts the folder on PYTHONPATH and torchtitan imports the recipe from there: __file__ is in it.
    const path = hfAssets(text, '/work/launch-1');
    expect(path).toBe('/work/launch-1/assets/hf/Llama-3.1-8B');
    expect(path.startsWith('/')).toBe(true);
  });

  it('training.steps covers the planned tokens (ceil(tokens / tokens per step)); the recipe default without them', () => {
    // tokens per step = batch 2 x seq 4096 x accum 4 x dp 8 = 262,144; 10M tokens -> 39 steps (38.1 rounded up).
    const x = input('llama-3.1-8b', { gpus: 8, batch: 2, seq: 4096 }, { trainTokens: 10_000_000 });
    expect(recipe(x).training!.steps).toBe(Math.ceil(10_000_000 / (2 * 4096 * 4 * 8)));
    expect(recipe(x).training!.steps).toBe(39);
    const bare = input('llama-3.1-8b', { gpus: 8, batch: 2, seq: 4096 });
    expect(recipe(bare).training!.steps).toBe(1000);
    const out = emitTorchtitan(bare);
    expect(out.ok && out.notes.some((n) => /no token count was planned/.test(n))).toBe(true);
  });
});

describe('torchtitan launch.sh and pins', () => {
  it('one node: torchrun with NGPU processes', () => {
    const sh = files(input('llama-3.1-8b', { gpus: 8 }))['launch.sh']!;
    expect(sh).toContain('export NGPU=${NGPU:-8}');
    expect(sh).toMatch(
      /torchrun --nproc_per_node=\$\{NGPU\} .* -m torchtitan\.train --module torchtitan_vramplan --config vramplan/,
    );
  });

  it('several nodes: nnodes, nproc per node, c10d rendezvous, and a slurm script', () => {
    const f = files(input('llama-3.1-70b', { gpus: 16, tp: 8 }, { gpusPerNode: 8 }));
    expect(f['launch.sh']).toContain(
      'torchrun --nnodes 2 --nproc_per_node 8 --node_rank $NODE_RANK --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500',
    );
    expect(f['slurm.sbatch']).toBeDefined();
  });

  it('pins torchtitan, torch and torchao', () => {
    const req = files(input('llama-3.1-8b', { gpus: 2 }))['requirements.txt']!;
    expect(req).toContain(`torchtitan==${TORCHTITAN_PINS.torchtitan}`);
    expect(req).toContain('torch==2.15.0');
    expect(req).toContain('torchao==0.18.0');
  });

  it('buildLaunch writes the torchtitan files for a torchtitan plan', () => {
    const b = buildLaunch(input('llama-3.1-8b', { gpus: 2 }));
    expect(b.engine).toBe('torchtitan');
    expect(b.files.map((f) => f.path)).toEqual([TORCHTITAN_FILE, 'launch.sh', 'requirements.txt']);
  });
});

describe('torchtitan blocker and rules', () => {
  it('refuses a model_type torchtitan registers no model for, naming the type and the registry', () => {
    const why = launchBlocker(input('mistral-7b-v0.1', { gpus: 2 }));
    expect(why).toMatch(
      /^torchtitan 0\.3\.0 does not run model_type 'mistral': .*torchtitan\/models\/__init__\.py/,
    );
    expect(launchBlocker(input('mistral-7b-v0.1', { gpus: 2 }))).toBe(why);
  });

  it('names the registry for a Llama model torchtitan has no flavor for', () => {
    const why = launchBlocker(input('llama-2-7b', { gpus: 2 }));
    expect(why).toMatch(/no torchtitan flavor for 'llama-2-7b'.*llama3 \(1B, 3B, 8B/);
  });

  it('forbid rules give their sentence: TP not dividing the KV heads, fp16, bad mesh', () => {
    // Llama 3.1 8B has 8 KV heads: tp 16 does not divide them.
    const tp = launchBlocker(input('llama-3.1-8b', { gpus: 32, tp: 16 }));
    expect(tp).toMatch(/rule torchtitan-tp-divides-heads/);
    const fp16 = launchBlocker(input('llama-3.1-8b', { gpus: 2, compute: 'fp16' }));
    expect(fp16).toMatch(/rule torchtitan-no-fp16/);
    const x = input('llama-3.1-8b', { gpus: 2 });
    const mesh = launchBlocker({ ...x, options: { ...x.options, gpus: 6, tp: 4 } });
    expect(mesh).toMatch(/rule torchtitan-mesh-product/);
    const pp = launchBlocker({ ...x, options: { ...x.options, gpus: 40, pp: 40 } });
    expect(pp).toMatch(/rule torchtitan-pp-stages-vs-layers/);
  });

  it('every rule cites a source at a commit (or the 0.3.0 tag) and a version', () => {
    for (const r of TORCHTITAN_RULES) {
      // experiments/rl is read in the 0.3.0 release (its wheel), cited at the tag.
      expect(r.source).toMatch(/github\.com\/pytorch\/torchtitan\/blob\/([0-9a-f]{40}|v0\.3\.0)\//);
      expect(r.versions).toBe('==0.3.0');
    }
  });
});

describe('torchtitan launch → --from round trip', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vramplan-torchtitan-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const KEYS = [
    'method',
    'weights',
    'compute',
    'optimizer',
    'batch',
    'seq',
    'checkpointing',
    'chunkedLoss',
    'zero',
    'offload',
    'gpus',
    'tp',
    'pp',
    'cp',
    'sequenceParallel',
    'lossParallel',
    'compile',
    'framework',
  ] as const;
  const CASES: Record<string, unknown>[] = [
    { gpus: 8, tp: 2, batch: 2, seq: 4096, checkpointing: 'selective' },
    { gpus: 4, checkpointing: 'full', offload: 'optimizer+params', 'chunked-loss': true },
    { gpus: 16, pp: 2, cp: 2, compile: true },
  ];
  CASES.forEach((flags, i) => {
    it(JSON.stringify(flags), () => {
      const x = input('llama-3.1-8b', flags);
      const dir = join(tmp, `case-${i}`);
      for (const f of buildLaunch(x).files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.content);
      }
      for (const from of [dir, join(dir, TORCHTITAN_FILE)]) {
        const c = readFromConfig(from);
        expect(c.format).toBe('torchtitan');
        const merged = mergeFlags(c, {});
        const back = optionsFromFlags(merged);
        const pick = (o: typeof back) => Object.fromEntries(KEYS.map((k) => [k, o[k]]));
        expect(pick(back)).toEqual(pick(x.options));
        // attn_backend "flex" reads back as the plan's flash (the profile's attention default), whatever was asked.
        expect(back.attention).toBe('flash');
        expect(merged['grad-accum']).toBe(4);
        expect(resolveModel(c.model!).id).toBe('llama-3.1-8b');
      }
    });
  });
});

describe('torchtitan pipeline stages under FSDP', () => {
  // torchtitan turns reshard_after_forward off under PP and torch's PipelineStage skips resharding and gradient
  // sync until the last micro-batch: the stage stays gathered and its fp32 gradients accumulate unsharded.
  const est = (pp: number) => {
    const arch = resolveModel('llama-3.1-8b');
    const options = onEngine(
      optionsFromFlags({ ...BASE, gpus: 8, pp, seq: 4096, batch: 1, checkpointing: 'none' }),
      'torchtitan',
    );
    return buildEstimate(arch, options, findGpu('a100-40gb-sxm'));
  };
  const GiB = 1024 ** 3;

  it('holds the whole stage gathered and its gradients unsharded all step', () => {
    const pp2 = est(2);
    const forward = pp2.phases.find((p) => p.phase === 'forward')!;
    // Half of Llama-3.1-8B's 8.03B parameters per stage: about 7.5 GiB of bf16 weights and 15 GiB of fp32 gradients.
    expect(forward.parts.buffers).toBeGreaterThan(7 * GiB);
    expect(forward.parts.gradients).toBeGreaterThan(14 * GiB);
    // The A100 40GB plan that fitted with two prefetched layers counted does not.
    expect(pp2.perGpu.deviceBytes).toBeGreaterThan(40 * GiB);
  });

  it('prefetches two layers without pipeline parallelism', () => {
    const forward = (pp: number) => est(pp).phases.find((p) => p.phase === 'forward')!.parts;
    expect(forward(1).gradients).toBe(0);
    // Two gathered layers (0.4 GiB each in bf16) and the root (embedding and head) against the first stage's
    // sixteen layers and embedding: 6.5 + 1 - 0.8 - 2 GiB more.
    expect(forward(2).buffers - forward(1).buffers).toBeGreaterThan(4 * GiB);
  });
});
