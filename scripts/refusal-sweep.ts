/**
 * Refusal sweep: estimates a grid of published serving and fine-tuning configurations in-process (the same
 * path as `vramplan estimate --json`: flags → engine defaults → the engine's checks → the estimate) and prints
 * the refusals grouped by message, so each group can be checked against the engine's own source. A memory
 * verdict ("does not fit") is not a refusal; an estimate with a non-finite figure is reported as one.
 *
 *   npx tsx scripts/refusal-sweep.ts [--only serve|moe|spec|lora-serve|offload|train|objective|features|finetune]
 *     [--examples N] [--every K] [--json]
 *
 * `--every K` estimates one case in K of each grid (the first, then every Kth): a sample for a machine too busy
 * for the whole grid. A prime K keeps the sample from lining up with one of the grid's axes.
 *
 * A tool, not a test: the grid is wide and its count moves as engines and models are added.
 */
import '../src/core/engines/registry.js';
import { runEstimate } from '../src/commands/estimate-run.js';
import { ENGINE_PROFILES } from '../src/core/engines/engines.js';
import { resolveModel } from '../src/io/load-model.js';
import type { Arch } from '../src/core/model/arch.js';
import type { RawFlags } from '../src/schema/flags.js';
import { finiteEstimate, stdoutOf } from '../test/helpers/published-configs.js';

type Flags = Record<string, string | number | boolean>;

const DENSE = [
  'llama-3.1-8b',
  'llama-3.1-70b',
  'llama-3.3-70b-instruct-fp8-dynamic',
  'qwen2.5-7b',
  'qwen2.5-72b',
  'qwen3-8b',
  'qwen3-32b',
  'mistral-7b-v0.3',
  'mistral-small-3.1-24b-instruct-2503',
  'gemma-2-9b',
  'gemma-3-27b-it',
  'phi-4',
];
const MOE = [
  'gpt-oss-20b',
  'gpt-oss-120b',
  'qwen3-30b-a3b',
  'qwen3-235b-a22b',
  'qwen3-235b-a22b-fp8',
  'deepseek-v3',
  'mixtral-8x7b-v0.1',
  'llama-4-scout-17b-16e',
  'llama-4-maverick-17b-128e-instruct',
];
const SERVE_GPUS = [
  'h100-sxm',
  'h200-sxm',
  'b200',
  'a100-80gb-sxm',
  'l40s',
  'rtx-4090',
  'rtx-3090',
  'rtx-5090',
  'rtx-6000-ada',
  'mi300x',
];
const SERVERS = ['vllm', 'sglang', 'llama.cpp', 'hf-generate'];
/** Weight formats as published checkpoints ship them (int4 as AWQ and as GPTQ). */
const SERVE_WEIGHTS: Flags[] = [
  { weights: 'bf16' },
  { weights: 'fp16' },
  { weights: 'fp8' },
  { weights: 'int8' },
  { weights: 'int4', 'quant-format': 'awq' },
  { weights: 'int4', 'quant-format': 'gptq' },
  { weights: 'mxfp4' },
  { weights: 'nvfp4' },
  { weights: 'q4_k_m' },
  { weights: 'q8_0' },
];
// Every registered engine that fine-tunes, after the contract's framework-only stacks they run on (`hf`,
// `deepspeed`): a new engine's registration puts it in the grid.
const TRAINING_PROFILES = Object.values(ENGINE_PROFILES).filter((p) =>
  p.methods.some((m) => m !== 'inference'),
);
const TRAINING_ENGINES = new Set<string>(TRAINING_PROFILES.map((p) => p.id));
const TRAINERS = [
  ...new Set(TRAINING_PROFILES.map((p) => p.framework).filter((f) => !TRAINING_ENGINES.has(f))),
  ...TRAINING_ENGINES,
];
const TRAIN_MODELS = [
  'llama-3.1-8b',
  'llama-3.2-1b',
  'qwen2.5-7b',
  'qwen3-8b',
  'mistral-7b-v0.3',
  'gemma-2-9b',
  'phi-4',
  'llama-3.1-70b',
  'qwen3-30b-a3b',
  'gpt-oss-20b',
  'mixtral-8x7b-v0.1',
];
const TRAIN_GPUS = ['h100-sxm', 'a100-80gb-sxm', 'rtx-4090', 'b200', 'mi300x'];

interface Case {
  grid: string;
  model: string;
  flags: Flags;
}

const pickOf = <T>(xs: readonly T[], i: number): T => xs[i % xs.length]!;

function* serve(): Generator<Case> {
  let i = 0;
  for (const model of [...DENSE, ...MOE])
    for (const engine of SERVERS)
      for (const w of SERVE_WEIGHTS)
        for (const gpu of SERVE_GPUS)
          for (const tp of [1, 2, 4, 8]) {
            i++;
            yield {
              grid: 'serve',
              model,
              flags: {
                framework: engine,
                method: 'inference',
                ...w,
                gpu,
                tp,
                gpus: tp,
                'kv-cache-dtype': pickOf(['auto', 'fp8'], i),
                batch: pickOf([1, 8, 64, 256], i),
                seq: pickOf([4096, 32768, 8192], i),
              },
            };
          }
}

function* moe(): Generator<Case> {
  for (const model of MOE)
    for (const engine of ['vllm', 'sglang'])
      for (const w of [
        { weights: 'bf16' },
        { weights: 'fp8' },
        { weights: 'mxfp4' },
        { weights: 'nvfp4' },
      ])
        for (const gpu of ['h100-sxm', 'h200-sxm', 'b200', 'mi300x'])
          for (const [tp, gpus, ep, dpa] of [
            [8, 8, 8, false],
            [4, 4, 4, false],
            [2, 2, 2, false],
            [1, 8, 8, true],
            [2, 8, 8, true],
            [8, 8, 8, true],
            [8, 16, 16, true],
            [4, 8, 1, true],
            [8, 16, 8, false],
          ] as const)
            yield {
              grid: 'moe',
              model,
              flags: {
                framework: engine,
                method: 'inference',
                ...w,
                gpu,
                tp,
                gpus,
                ...(ep > 1 ? { ep } : {}),
                ...(dpa ? { 'dp-attention': true } : {}),
                batch: 128,
                seq: 8192,
              },
            };
}

function* spec(): Generator<Case> {
  const models = [
    'llama-3.1-8b',
    'llama-3.1-70b',
    'qwen3-8b',
    'qwen3-32b',
    'gpt-oss-120b',
    'qwen3-235b-a22b',
    'deepseek-v3',
    'qwen3-next-80b-a3b',
    'glm-4.5-air',
    'llama-4-maverick-17b-128e-instruct',
  ];
  for (const model of models)
    for (const engine of ['vllm', 'sglang', 'llama.cpp'])
      for (const s of [
        { speculative: 'eagle3' } as Flags,
        { speculative: 'eagle3', 'spec-tokens': 4 },
        { speculative: 'mtp' },
        { speculative: 'ngram', 'spec-acceptance': 0.5 },
      ])
        for (const w of [{ weights: 'bf16' }, { weights: 'fp8' }, { weights: 'q4_k_m' }])
          for (const tp of [1, 8])
            for (const dpa of [false, true])
              yield {
                grid: 'spec',
                model,
                flags: {
                  framework: engine,
                  method: 'inference',
                  ...s,
                  ...w,
                  gpu: 'h200-sxm',
                  tp: dpa ? 1 : tp,
                  gpus: dpa ? 8 : tp,
                  ...(dpa ? { 'dp-attention': true } : {}),
                  batch: 32,
                  seq: 8192,
                },
              };
}

function* loraServe(): Generator<Case> {
  for (const model of [
    'llama-3.1-8b',
    'qwen2.5-7b',
    'qwen3-30b-a3b',
    'gpt-oss-20b',
    'llama-3.1-70b',
  ])
    for (const engine of ['vllm', 'sglang', 'llama.cpp', 'hf-generate'])
      for (const w of [
        { weights: 'bf16' },
        { weights: 'fp8' },
        { weights: 'int4', 'quant-format': 'awq' } as Flags,
        { weights: 'nf4' },
        { weights: 'q4_k_m' },
      ])
        for (const loras of [1, 4])
          for (const rank of [16, 64])
            for (const tp of [1, 4])
              yield {
                grid: 'lora-serve',
                model,
                flags: {
                  framework: engine,
                  method: 'inference',
                  ...w,
                  'max-loras': loras,
                  'lora-rank': rank,
                  gpu: 'h100-sxm',
                  tp,
                  gpus: tp,
                  batch: 16,
                  seq: 4096,
                },
              };
}

/** llama.cpp's host offload on consumer GPUs: -ngl and --n-cpu-moe over MoE models (and one dense model). */
function* offload(): Generator<Case> {
  for (const model of [...MOE, 'llama-3.1-70b'])
    for (const weights of ['q4_k_m', 'q8_0', 'mxfp4', 'nvfp4', 'bf16'])
      for (const gpu of ['rtx-3090', 'rtx-4090', 'rtx-5090', 'l4'])
        for (const cpuMoe of [undefined, 8, 1000])
          for (const ngl of [undefined, 16])
            yield {
              grid: 'offload',
              model,
              flags: {
                framework: 'llama.cpp',
                method: 'inference',
                weights,
                gpu,
                ...(cpuMoe === undefined ? {} : { 'n-cpu-moe': cpuMoe }),
                ...(ngl === undefined ? {} : { 'gpu-layers': ngl }),
                batch: 1,
                seq: 8192,
              },
            };
}

const ZERO: Flags[] = [
  { zero: 0, gpus: 1 },
  { zero: 0, gpus: 2 },
  { zero: 1, gpus: 8 },
  { zero: 2, gpus: 8 },
  { zero: 3, gpus: 8 },
  { zero: 2, gpus: 8, offload: 'optimizer' },
  { zero: 3, gpus: 8, offload: 'optimizer' },
  { zero: 3, gpus: 8, offload: 'optimizer+params' },
  { zero: 3, gpus: 8, tp: 2 },
];
const METHODS: Flags[] = [
  { method: 'full' },
  { method: 'lora' },
  { method: 'lora', 'lora-targets': 'all-linear', 'lora-rank': 64 },
  { method: 'qlora' },
  { method: 'qlora', weights: 'int4' },
  { method: 'lora', weights: 'int8' },
];
const OPTIMIZERS = [
  'adamw',
  'adamw-8bit',
  'paged-adamw-8bit',
  'adafactor',
  'lion',
  'sgd',
  'adam-mini',
];
const CKPT = ['none', 'selective', 'full', 'offload'];

function* train(): Generator<Case> {
  let i = 0;
  for (const model of TRAIN_MODELS)
    for (const engine of TRAINERS)
      for (const m of METHODS)
        for (const optimizer of OPTIMIZERS)
          for (const z of ZERO)
            for (const checkpointing of CKPT) {
              i++;
              yield {
                grid: 'train',
                model,
                flags: {
                  framework: engine,
                  ...m,
                  optimizer,
                  ...z,
                  checkpointing,
                  attention: pickOf(['sdpa', 'flash', 'eager'], i),
                  gpu: pickOf(TRAIN_GPUS, i),
                  batch: pickOf([1, 4, 8], i),
                  seq: pickOf([2048, 4096, 8192], i),
                  'grad-accum': pickOf([1, 4, 8], i),
                },
              };
            }
}

function* objective(): Generator<Case> {
  const objectives: Flags[] = [
    { objective: 'dpo' },
    { objective: 'dpo', reference: 'precomputed' },
    { objective: 'orpo' },
    { objective: 'kto' },
    { objective: 'simpo' },
    { objective: 'grpo', rollout: 'hf' },
    { objective: 'grpo', rollout: 'vllm-colocate' },
    { objective: 'grpo', rollout: 'vllm-colocate', 'rollout-sleep': true },
    { objective: 'grpo', rollout: 'vllm-server', 'rollout-gpus': 1 },
    { objective: 'ppo' },
  ];
  for (const model of [
    'llama-3.1-8b',
    'qwen2.5-7b',
    'qwen3-8b',
    'llama-3.2-1b',
    'qwen3-30b-a3b',
    'gpt-oss-20b',
  ])
    for (const engine of TRAINERS)
      for (const m of [{ method: 'full' }, { method: 'lora' }, { method: 'qlora' }])
        for (const obj of objectives)
          for (const z of [
            { zero: 0, gpus: 1 },
            { zero: 2, gpus: 8 },
            { zero: 3, gpus: 8 },
          ])
            for (const checkpointing of ['none', 'full']) {
              const server = obj.rollout === 'vllm-server';
              yield {
                grid: 'objective',
                model,
                flags: {
                  framework: engine,
                  ...m,
                  ...obj,
                  ...z,
                  ...(server ? { gpus: Number(z.gpus) + 1 } : {}),
                  checkpointing,
                  gpu: 'h100-sxm',
                  seq: 2048,
                },
              };
            }
}

/** FP8 training, Liger, modules_to_save, context and pipeline parallelism, Unsloth's tiled MLP. */
function* features(): Generator<Case> {
  const extras: Flags[] = [
    { method: 'full', compute: 'fp8' },
    { method: 'full', compute: 'mxfp8' },
    { method: 'lora', liger: true },
    { method: 'full', liger: true },
    { method: 'lora', 'modules-to-save': 'embed,lm_head' },
    { method: 'full', cp: 2 },
    { method: 'full', pp: 2 },
    { method: 'full', tp: 2, 'sequence-parallel': true, 'loss-parallel': true },
    { method: 'lora', 'tiled-mlp': true },
    { method: 'full', 'optimizer-in-backward': true },
    { method: 'lora', 'chunked-loss': true },
  ];
  for (const model of ['llama-3.1-8b', 'qwen3-8b', 'qwen3-30b-a3b'])
    for (const engine of TRAINERS)
      for (const e of extras)
        for (const gpus of [1, 8])
          for (const gpu of ['h100-sxm', 'a100-80gb-sxm', 'rtx-4090', 'b200']) {
            const par = Number(e.cp ?? 1) * Number(e.pp ?? 1) * Number(e.tp ?? 1);
            if (par > gpus) continue;
            yield {
              grid: 'features',
              model,
              flags: { framework: engine, ...e, gpus, ...(gpus > 1 ? { zero: 3 } : {}), gpu },
            };
          }
}

const FT_GPUS = [
  'a100-80gb-sxm',
  'h100-sxm',
  'h200-sxm',
  'b200',
  'l40s',
  'rtx-4090',
  'rtx-3090',
  'rtx-5090',
  'a10g',
  't4',
  'mi300x',
];
const FT_SHARDING: Flags[] = [
  { zero: 0, gpus: 1 },
  { zero: 0, gpus: 1, offload: 'optimizer' },
  { zero: 0, gpus: 4 },
  { zero: 2, gpus: 4 },
  { zero: 3, gpus: 4 },
  { zero: 2, gpus: 4, offload: 'optimizer' },
  { zero: 3, gpus: 4, offload: 'optimizer' },
  { zero: 3, gpus: 4, offload: 'optimizer+params' },
];
const FT_MODELS = [
  'llama-3.1-8b',
  'llama-3.2-1b',
  'qwen2.5-7b',
  'qwen3-8b',
  'mistral-7b-v0.3',
  'qwen3-30b-a3b',
];

/** The extras one case carries, rotated: FP8 compute where the method trains the base, modules_to_save beside
 *  LoRA, Unsloth's tiled MLP where the engine offers it, and a long sequence. */
const ftExtra = (engine: string, method: string, i: number): Flags => {
  const tiled = Object.values(ENGINE_PROFILES).some((p) => p.id === engine && p.tiledMlp);
  const extras: Flags[] = [
    {},
    method === 'full' ? { compute: 'fp8' } : {},
    method === 'qlora' ? {} : method === 'lora' ? { 'modules-to-save': 'embed,lm_head' } : {},
    tiled ? { 'tiled-mlp': true } : {},
    { seq: 32768, checkpointing: 'full' },
  ];
  return pickOf(extras, i);
};

/** Fine-tuning over every training engine x method x objective x GPU x sharding/offload x optimizer. */
function* finetune(): Generator<Case> {
  let i = 0;
  for (const engine of TRAINERS)
    for (const method of ['full', 'lora', 'qlora'])
      for (const objective of ['sft', 'dpo', 'orpo', 'kto', 'simpo', 'grpo', 'ppo'])
        for (const gpu of FT_GPUS)
          for (const z of FT_SHARDING)
            for (const optimizer of OPTIMIZERS) {
              i++;
              yield {
                grid: 'finetune',
                model: pickOf(FT_MODELS, i),
                flags: {
                  framework: engine,
                  method,
                  objective,
                  optimizer,
                  ...z,
                  gpu,
                  batch: objective === 'kto' ? 2 : 1,
                  // TRL's generation batch (batch x processes x grad-accum) divides by its 8 generations.
                  ...(objective === 'grpo' ? { 'grad-accum': 8 } : {}),
                  seq: 2048,
                  checkpointing: pickOf(['full', 'none'], i),
                  ...ftExtra(engine, method, i),
                },
              };
            }
}

const GRIDS: Record<string, () => Generator<Case>> = {
  serve,
  moe,
  spec,
  'lora-serve': loraServe,
  offload,
  train,
  objective,
  features,
  finetune,
};

const archs = new Map<string, Arch>();
const archOf = (id: string): Arch => {
  let a = archs.get(id);
  if (!a) archs.set(id, (a = resolveModel(id)));
  return structuredClone(a);
};

/** One case: null when estimated with finite figures, else the refusal's message. */
function run(c: Case): string | null {
  let out: string;
  try {
    out = stdoutOf(() => runEstimate(archOf(c.model), c.flags as RawFlags, true));
  } catch (e) {
    return (e as Error).message;
  }
  const r = JSON.parse(out) as { perGpu: unknown; time?: unknown };
  return finiteEstimate(r) ? null : 'non-finite figure in the estimate';
}

/** The message with numbers and the model's id generalised, so one cause is one group. */
const groupOf = (msg: string, model: string): string =>
  msg
    .replaceAll(model, '<model>')
    .replace(/'[^']*'/g, (q) => (/^'[\w.-]+'$/.test(q) ? q : "'…'"))
    .replace(/\b\d+(\.\d+)?\b/g, 'N');

const argv = process.argv.slice(2);
const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined;
const examples = argv.includes('--examples') ? Number(argv[argv.indexOf('--examples') + 1]) : 2;
const every = argv.includes('--every') ? Number(argv[argv.indexOf('--every') + 1]) : 1;
const groups = new Map<string, { count: number; examples: string[] }>();
let total = 0;
let refused = 0;
for (const [name, grid] of Object.entries(GRIDS)) {
  if (only && only !== name) continue;
  let k = 0;
  for (const c of grid()) {
    if (k++ % every !== 0) continue;
    total++;
    const msg = run(c);
    if (msg === null) continue;
    refused++;
    const key = `[${c.grid}] ${groupOf(msg, c.model)}`;
    const g = groups.get(key) ?? { count: 0, examples: [] };
    g.count++;
    if (g.examples.length < examples)
      g.examples.push(
        `${c.model} ${Object.entries(c.flags)
          .map(([k, v]) => (v === true ? `--${k}` : `--${k} ${v}`))
          .join(' ')}`,
      );
    groups.set(key, g);
  }
}
const sorted = [...groups.entries()].sort((a, b) => b[1].count - a[1].count);
if (argv.includes('--json'))
  console.log(JSON.stringify({ total, refused, groups: Object.fromEntries(sorted) }, null, 2));
else {
  for (const [key, g] of sorted) {
    console.log(`${g.count}\t${key}`);
    for (const e of g.examples) console.log(`\t  e.g. ${e}`);
  }
  console.log(`\n${refused} refused of ${total} configurations, ${groups.size} groups`);
}
