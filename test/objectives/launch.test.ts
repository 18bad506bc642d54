/**
 * Preference and RL objectives planned and launched: the shipped GRPO and DPO scenarios' first
 * plans, `estimate` with a plan's options giving its bytes and seconds, TRL's trainer files (hf-args.json
 * trainer + config block, train.py, GRPO server mode's launch.sh) and the launch → --from round trip.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker } from '../../src/core/launch/index.js';
import { plan, type Plan, type PlanResult } from '../../src/core/plan/index.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema, type Scenario } from '../../src/schema/scenario.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import type { Arch } from '../../src/core/model/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-rl-launch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let folders = 0;

const GRPO = 'scenarios/grpo-qwen2.5-7b.yaml';
const DPO = 'scenarios/dpo-llama-3.1-8b.yaml';

function planOf(file: string, s: Scenario, top?: number): { r: PlanResult; arch: Arch } {
  const input = planInputOf(file, s);
  return { r: plan({ ...input, top }), arch: input.arch };
}

/** Writes the plan's launch folder and returns its files by path and the folder. */
function launchPlan(p: Plan, arch: Arch): { files: Record<string, string>; dir: string } {
  const bundle = buildLaunch(launchInputOfPlan(p, arch, arch.hfId ?? arch.id));
  expect(bundle.files.length, JSON.stringify(bundle.outputs)).toBeGreaterThan(0);
  const dir = join(tmp, String(folders++));
  const files: Record<string, string> = {};
  for (const f of bundle.files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.content);
    files[f.path] = f.content;
  }
  return { files, dir };
}

/** `estimate` with the plan's options on its GPU (and its accumulation and power cap) gives its bytes and step. */
function estimateMatches(p: Plan, arch: Arch): void {
  const gpu = findGpu(p.hardware.gpuId);
  const e = buildEstimate(arch, p.options, gpu, {
    gradAccum: p.choices.gradAccum,
    powerLimit: p.hardware.powerLimitFraction,
    gpusPerNode: p.hardware.gpusPerNode,
    interconnect: null,
    interNodeGBps: 25,
    quantFormat: null,
  });
  expect(e.perGpu.deviceBytes, p.id).toBe(p.memory.deviceBytes);
  expect(e.perGpu.breakdown, p.id).toEqual(p.memory.breakdown);
  expect(e.time?.stepSeconds, p.id).toBe(p.time.stepSeconds);
  expect(e.time?.phases, p.id).toEqual(p.time.phases);
}

/** The folder read back (--from <folder>) gives the plan's options and bytes. */
function readsBack(p: Plan, arch: Arch, dir: string): void {
  const back = optionsFromFlags(mergeFlags(readFromConfig(dir), {}));
  expect(back, p.id).toEqual(p.options);
  const gpu = findGpu(p.hardware.gpuId);
  expect(buildEstimate(arch, back, gpu).perGpu.deviceBytes).toBe(p.memory.deviceBytes);
}

describe('GRPO scenario (Qwen2.5-7B, rented H100s)', () => {
  it('plans LoRA with vLLM colocated on one H100 as its first TRL plan; estimate and --from give its bytes', () => {
    // Unsloth's plans (one GPU, shared weights) rank above TRL's: see the Unsloth case below; TRL's also pay the old
    // log-probs' forward a vLLM rollout runs (FrameworkProfile.grpoOldLogprobs), so its first plan is past the top 10.
    const { r, arch } = planOf(GRPO, loadScenario(GRPO), 40);
    const best = r.plans.find((p) => engineOf(p.options) !== 'unsloth')!;
    expect(best.choices.method).toBe('lora');
    expect(best.hardware.gpus).toBe(1);
    expect(best.options).toMatchObject({
      objective: 'grpo',
      rollout: 'vllm-colocate',
      reference: 'none',
      generations: 8,
      promptTokens: 512,
      completionTokens: 1024,
      seq: 1536,
    });
    // vLLM's share of the H100 is in the plan's memory (weights + KV pool = 30 % of the card).
    const b = best.memory.breakdown;
    expect(b.rolloutWeights! + b.rolloutKvCache!).toBeCloseTo(0.3 * best.memory.capacityBytes, -3);
    expect(best.time.phases.find((x) => x.phase === 'rollout')!.seconds).toBeGreaterThan(0);
    for (const p of r.plans) estimateMatches(p, arch);
    const { files, dir } = launchPlan(best, arch);
    const args = JSON.parse(files['hf-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.trainer).toBe('grpo');
    expect(args.grpo_config).toMatchObject({
      use_vllm: true,
      vllm_mode: 'colocate',
      vllm_gpu_memory_utilization: 0.3,
      num_generations: 8,
      // The longest completion: ceil(1.47 x the mean 1024) = 1506.
      max_completion_length: 1506,
      beta: 0,
    });
    expect(files['train.py']).toContain('GRPOTrainer(');
    expect(files['train.py']).toContain('reward_funcs=[placeholder_reward]');
    // vllm 0.25.1 (TRL 1.9.0's vllm extra cap) with the torch it pins, inside axolotl's torch range.
    expect(files['requirements.txt']).toMatch(/^vllm==0\.25\.1$/m);
    expect(files['requirements.txt']).toMatch(/^torch==2\.11\.0$/m);
    expect(files['requirements.txt']).toMatch(/^transformers==5\.14\.1$/m);
    expect(files['requirements.txt']).not.toMatch(/^torch==2\.12/m);
    readsBack(best, arch, dir);
  });

  it('on eight owned H100s a vLLM server plan launches trl vllm-serve beside the trainers and reads back', () => {
    const s = scenarioSchema.parse({
      ...loadScenario(GRPO),
      hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }], counts: { min: 1, max: 8 } },
    });
    // Colocated vLLM decodes each process's whole generation batch at once and ranks first; a server plan
    // gives a GPU to vLLM for about the same step, so at least twice the energy on owned GPUs: it ranks below
    // every variant (engine, attention kernel, micro-batch, checkpointing) of the one- and two-GPU colocated
    // plans that cost less, several hundred of them, how many depending on how close those variants' times are.
    const { r, arch } = planOf(GRPO, s, 2000);
    const server = r.plans.find((p) => p.options.rollout === 'vllm-server');
    expect(server, 'a server-mode plan in the top 2000').toBeDefined();
    const p = server!;
    estimateMatches(p, arch);
    const { files, dir } = launchPlan(p, arch);
    const n = p.options.rolloutGpus!;
    const sh = files['launch.sh']!;
    expect(sh).toContain(`trl vllm-serve --model Qwen/Qwen2.5-7B`);
    expect(sh).toContain(`--data_parallel_size ${n}`);
    expect(sh).toMatch(/^CUDA_VISIBLE_DEVICES=[\d,]+ accelerate launch /m);
    const args = JSON.parse(files['hf-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.grpo_config!.vllm_mode).toBe('server');
    expect(args.vllm_serve).toMatchObject({ gpus: n, trainer_gpus: p.hardware.gpus - n });
    expect(files['accelerate.yaml']).toContain(`num_processes: ${p.hardware.gpus - n}`);
    readsBack(p, arch, dir);
  });
});

describe('GRPO asked on exactly eight GPUs', () => {
  it('searches vLLM server plans whose trainers and server make the eight, and sizes the server to the longest completion', () => {
    const s = scenarioSchema.parse({
      ...loadScenario(GRPO),
      hardware: { owned: [{ gpu: 'h100-sxm', count: 8 }], counts: { min: 8, max: 8 } },
    });
    const { r, arch } = planOf(GRPO, s, 2000);
    for (const p of r.plans) expect(p.hardware.gpus).toBe(8);
    const server = r.plans.find((p) => p.options.rollout === 'vllm-server');
    expect(server, 'a server-mode plan on the eight GPUs').toBeDefined();
    const p = server!;
    const n = p.options.rolloutGpus!;
    expect(p.options.gpus).toBe(8);
    const { files } = launchPlan(p, arch);
    expect(files['accelerate.yaml']).toContain(`num_processes: ${8 - n}`);
    // The prompt 512 and the longest completion ceil(1.47 x 1024) = 1506 (GRPOConfig max_completion_length).
    expect(files['launch.sh']).toContain('--max_model_len 2018 &');
    const args = JSON.parse(files['hf-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.grpo_config).toMatchObject({
      max_completion_length: 1506,
      vllm_mode: 'server',
      vllm_max_model_length: 2018,
    });
  });
});

describe('DPO scenario (Llama-3.1-8B LoRA, one RTX 4090)', () => {
  it('plans DPO LoRA on the 24 GB card with the adapter-disabled base as reference', () => {
    const { r, arch } = planOf(DPO, loadScenario(DPO), 200);
    // The first plan that launches TRL's DPOTrainer (Unsloth's fused LoRA kernels rank above it on the 4090).
    const best = r.plans.find((p) => engineOf(p.options).startsWith('hf-'))!;
    expect(best.choices.method).toBe('lora');
    expect(best.hardware.gpuId).toBe('rtx-4090');
    expect(best.options).toMatchObject({ objective: 'dpo', reference: 'model' });
    expect(best.memory.breakdown.referenceModel).toBe(0);
    for (const p of r.plans) estimateMatches(p, arch);
    const { files, dir } = launchPlan(best, arch);
    const args = JSON.parse(files['hf-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.trainer).toBe('dpo');
    expect(args.dpo_config).toMatchObject({
      beta: 0.1,
      precompute_ref_log_probs: false,
      max_length: 1024,
    });
    expect(files['train.py']).toContain('DPOTrainer(');
    expect(files['train.py']).toContain('trl-lib/ultrafeedback_binarized');
    expect(files['train.py']).toContain('peft_config=LoraConfig');
    readsBack(best, arch, dir);
  });
});

describe("the shipped scenarios' Unsloth plans launch and read back", () => {
  for (const file of [GRPO, DPO])
    it(file, () => {
      const { r, arch } = planOf(file, loadScenario(file));
      const ours = r.plans.filter((p) => engineOf(p.options) === 'unsloth');
      expect(engineOf(r.plans[0]!.options)).toBe('unsloth');
      for (const p of ours) {
        const { files, dir } = launchPlan(p, arch);
        const args = JSON.parse(files['unsloth-args.json']!) as Record<string, unknown>;
        expect(args.trainer).toBe(p.options.objective);
        readsBack(p, arch, dir);
      }
    });
});

describe('every TRL objective launches on the HF engines and reads back', () => {
  const arch = resolveModel('llama-3.1-8b');
  const gpu = findGpu('h100-sxm');
  const CASES: [RawFlags, string, string][] = [
    [{ method: 'full', objective: 'dpo', gpus: 2, zero: 3, framework: 'hf' }, 'dpo', 'DPOTrainer'],
    [{ method: 'lora', objective: 'dpo', reference: 'precomputed' }, 'dpo', 'DPOTrainer'],
    [{ method: 'lora', objective: 'kto', batch: 2 }, 'kto', 'KTOTrainer'],
    [{ method: 'qlora', objective: 'orpo' }, 'orpo', 'from trl.experimental.orpo import'],
    [{ method: 'lora', objective: 'simpo' }, 'cpo', 'from trl.experimental.cpo import'],
    [{ method: 'lora', objective: 'grpo', rollout: 'hf' }, 'grpo', 'GRPOTrainer'],
    [
      { method: 'full', objective: 'grpo', rollout: 'vllm-colocate', reference: 'model', gpus: 2 },
      'grpo',
      'GRPOTrainer',
    ],
    [
      { method: 'lora', objective: 'grpo', rollout: 'vllm-server', gpus: 4, 'rollout-gpus': 2 },
      'grpo',
      'GRPOTrainer',
    ],
  ];
  CASES.forEach(([flags, trainer, py], i) =>
    it(JSON.stringify(flags), () => {
      const asked = optionsFromFlags(flags);
      const options = onEngine(asked, engineOf(asked));
      const accum = 4;
      expect(launchBlocker({ arch, options, accum })).toBeNull();
      const estimate = buildEstimate(arch, options, gpu);
      const x = { arch, options, gpu, gradAccum: accum, powerLimitW: null, estimate };
      const bundle = buildLaunch({ ...x, modelRef: arch.hfId ?? arch.id });
      const dir = join(tmp, `flags-${i}`);
      const files: Record<string, string> = {};
      for (const f of bundle.files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.content);
        files[f.path] = f.content;
      }
      const args = JSON.parse(files['hf-args.json']!) as Record<string, unknown>;
      expect(args.trainer).toBe(trainer);
      expect(args[`${trainer}_config`]).toBeDefined();
      expect(files['train.py']).toContain(py);
      // axolotl.yaml beside TRL's files with its rl: keys (axolotl-rl.test.ts), except GRPO server mode.
      if (options.rollout === 'vllm-server') expect(files['axolotl.yaml']).toBeUndefined();
      else expect(files['axolotl.yaml']).toContain(`\nrl: ${options.objective}\n`);
      const back = optionsFromFlags(mergeFlags(readFromConfig(dir), {}));
      expect(back).toEqual(options);
      expect(buildEstimate(arch, back, gpu).perGpu.deviceBytes).toBe(estimate.perGpu.deviceBytes);
    }),
  );

  it('refuses what TRL 1.9.0 rejects, and engines without a TRL launcher, in one line', () => {
    const refuse = (flags: RawFlags) => {
      const asked = optionsFromFlags(flags);
      return launchBlocker({ arch, options: onEngine(asked, engineOf(asked)), accum: 1 });
    };
    expect(refuse({ method: 'lora', objective: 'grpo', checkpointing: 'offload' })).toMatch(
      /GRPOConfig has no activation_offloading/,
    );
    expect(
      refuse({ method: 'lora', objective: 'dpo', reference: 'precomputed', liger: true }),
    ).toMatch(/precompute_ref_log_probs/);
    // kto_trainer.py v1.9.0: the Liger KTO loss refuses precomputed reference log-probs and an adapter on lm_head.
    expect(
      refuse({ method: 'lora', objective: 'kto', batch: 2, reference: 'precomputed', liger: true }),
    ).toMatch(/KTOTrainer: the Liger KTO loss does not support precompute_ref_log_probs/);
    expect(
      refuse({
        method: 'lora',
        objective: 'kto',
        batch: 2,
        liger: true,
        'lora-targets': 'q,k,v,o,gate,up,down,lm_head',
      }),
    ).toMatch(/KTOTrainer: use_liger_kernel is incompatible with a LoRA adapter on lm_head/);
    // torchtune writes LoRA DPO (lora_dpo_*); KTO's KL term needs two completions per micro-batch.
    expect(refuse({ method: 'lora', objective: 'dpo', framework: 'torchtune' })).toBeNull();
    expect(refuse({ method: 'lora', objective: 'kto', batch: 1 })).toMatch(
      /TRL 1\.9\.0 KTOTrainer needs a micro-batch of at least 2/,
    );
    expect(refuse({ method: 'lora', objective: 'kto', framework: 'unsloth', batch: 1 })).toMatch(
      /TRL 0\.24\.0 KTOTrainer needs a micro-batch of at least 2/,
    );
    expect(refuse({ method: 'lora', objective: 'kto', framework: 'unsloth', batch: 2 })).toBeNull();
  });
});
