// A plan is what runs: every top-10 plan of every shipped scenario is launched, each file it writes is read
// back with a real parser (JSON; YAML as PyYAML's 1.1 reads it; bash -n; Python's ast), and the keys that
// decide the run equal the plan's; training folders read back (--from <folder>) give the plan's options and bytes.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBack, serveCommands } from '../serving/serve-line.js';
import { fp8KvFlag } from '../../src/core/engines/kernels.js';
import { findGpu } from '../../src/io/load-catalog.js';
import type { Arch } from '../../src/core/model/index.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { longestCompletion } from '../../src/core/time/completion-length.js';
import { parse } from 'yaml';
import { buildLaunch, launchBlocker, ruleBroken } from '../../src/core/launch/index.js';
import type { Plan } from '../../src/core/plan/index.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, modelSpecOf } from '../../src/io/load-scenario.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf, planScenarioFile } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import {
  accelerateSchema,
  axolotlSchema,
  deepspeedSchema,
  hfArgsSchema,
  hfTrlArgsSchema,
  torchtuneSchema,
} from '../fixtures/engine-schemas/index.js';

const SCENARIOS = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join('scenarios', f));

const hasPython = spawnSync('python3', ['--version']).status === 0;

/** Shell and Python files met so far, checked together (one bash -n and one Python run per test). */
const pending = { sh: new Set<string>(), py: new Set<string>() };

function parsesAs(path: string, content: string): unknown {
  if (path.endsWith('.json')) return JSON.parse(content);
  if (path.endsWith('.yaml')) return parse(content, { version: '1.1' });
  if (path.endsWith('.sh')) pending.sh.add(content);
  if (path.endsWith('.py')) pending.py.add(content);
  return content;
}

/** bash -n over every pending script, and Python's ast over every pending .py file. */
function checkPendingScripts(): void {
  // Each distinct script alone: a stray quote in one must not be closed by the next.
  for (const sh of pending.sh) {
    const r = spawnSync('bash', ['-n'], { input: sh, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  }
  if (hasPython && pending.py.size > 0) {
    const r = spawnSync(
      'python3',
      ['-c', 'import ast,json,sys\nfor src in json.load(sys.stdin): ast.parse(src)'],
      { input: JSON.stringify([...pending.py]), encoding: 'utf8' },
    );
    expect(r.status, r.stderr).toBe(0);
  }
  pending.sh.clear();
  pending.py.clear();
}

const readBackDir = mkdtempSync(join(tmpdir(), 'vramplan-readback-'));
afterAll(() => rmSync(readBackDir, { recursive: true, force: true }));
let folders = 0;

/**
 * The emitted folder read back as the engine would (`--from <folder>`: hf-args.json with accelerate.yaml /
 * deepspeed.json, or torchtune.yaml) gives the plan's options, and re-estimating them gives its bytes.
 */
function rereads(p: Plan, arch: Arch, files: readonly { path: string; content: string }[]): void {
  const dir = join(readBackDir, String(folders++));
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.content);
  }
  const back = optionsFromFlags(mergeFlags(readFromConfig(dir), {}));
  expect(back, p.id).toEqual(p.options);
  // GRPO with vLLM colocated: its pool fills its share of the plan's GPU.
  const ctx = back.rollout === 'vllm-colocate' ? { gpuCapacityBytes: p.memory.capacityBytes } : {};
  expect(estimateMemory(arch, back, ctx).perGpu.deviceBytes).toBe(p.memory.deviceBytes);
}

/** TRL's trainer key per objective (engines/hf/trl-objective.ts; SimPO is CPOTrainer's loss). */
const TRAINER_OF: Record<string, string> = {
  sft: 'sft',
  dpo: 'dpo',
  kto: 'kto',
  orpo: 'orpo',
  simpo: 'cpo',
  grpo: 'grpo',
};

/**
 * hf-args.json names the plan's TRL trainer and holds its config block; GRPO's block carries the plan's
 * rollout (vLLM colocated share, server GPUs) and train.py instantiates the trainer. Returns the block.
 */
function checkTrainer(
  plan: Plan,
  args: Record<string, unknown>,
  files: Record<string, unknown>,
): Record<string, unknown> & {
  per_device_train_batch_size: number;
  gradient_accumulation_steps: number;
  gradient_checkpointing: boolean;
} {
  const o = plan.options;
  const trainer = TRAINER_OF[o.objective ?? 'sft']!;
  expect(args.trainer, plan.id).toBe(trainer);
  const cfg = args[`${trainer}_config`] as ReturnType<typeof checkTrainer>;
  expect(cfg, plan.id).toBeDefined();
  const py = String(files['train.py']);
  const cls = { sft: 'SFT', dpo: 'DPO', kto: 'KTO', orpo: 'ORPO', cpo: 'CPO', grpo: 'GRPO' }[
    trainer
  ]!;
  expect(py).toContain(`${cls}Trainer(`);
  if (o.objective === 'grpo') {
    const g = cfg;
    expect(g.num_generations).toBe(o.generations);
    // --completion-tokens is the mean; TRL's cap is the longest completion.
    expect(g.max_completion_length).toBe(longestCompletion(o.completionTokens!));
    expect(g.steps_per_generation).toBe(plan.choices.gradAccum);
    expect(args.max_prompt_length).toBe(o.promptTokens);
    expect(g.use_vllm).toBe(o.rollout !== 'hf');
    expect(py).toContain('PLACEHOLDER REWARD');
    if (o.rollout === 'vllm-colocate') expect(g.vllm_gpu_memory_utilization).toBe(o.rolloutMemory);
    if (o.rollout === 'vllm-server') {
      expect(g.vllm_mode).toBe('server');
      expect((args.vllm_serve as { gpus: number }).gpus).toBe(o.rolloutGpus);
      expect(String(files['launch.sh'])).toContain('trl vllm-serve');
    }
    if (o.rollout !== 'hf') expect(String(files['requirements.txt'])).toMatch(/^vllm==/m);
  }
  return cfg;
}

/**
 * NF4 FSDP-QLoRA loads through axolotl's qlora_sharded_model_loading, so the folder writes axolotl.yaml and no
 * train.py args (engines/hf/distribution.ts axolotlShardedLoad).
 */
function checkAxolotlSharded(plan: Plan, files: Record<string, unknown>): void {
  const c = plan.choices;
  expect(c.method).toBe('qlora');
  expect(c.zero).toBe(3);
  const axo = axolotlSchema.parse(files['axolotl.yaml']);
  expect(axo.qlora_sharded_model_loading).toBe(true);
  expect(axo.fsdp_version).toBe(1);
  expect(axo.micro_batch_size).toBe(c.microBatch);
  expect(axo.gradient_accumulation_steps).toBe(c.gradAccum);
}

function checkPlan(plan: Plan, files: Record<string, unknown>): void {
  const c = plan.choices;
  const o = plan.options;
  const engineFiles = Object.keys(files).filter((f) => f !== 'power-limit.sh');
  expect(engineFiles.length, `${plan.id}: no engine file`).toBeGreaterThan(0);
  // Every folder pins the exact versions its keys were written for.
  // An NF4 FSDP-QLoRA folder runs axolotl alone (its sharded loader): its own requirements file.
  const pins = String(files['requirements.txt'] ?? files['requirements-axolotl.txt'] ?? '')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
  // SGLang on ROCm installs from source at a tag (its AMD guide; PyPI's wheel is the CUDA build): the tag is the pin.
  const fromSource = files['install-rocm.sh'];
  if (fromSource !== undefined)
    expect(String(fromSource), plan.id).toMatch(/^git clone -b v\d+(\.\d+)+(\.post\d+)? /m);
  else expect(pins.length, `${plan.id}: no requirements.txt`).toBeGreaterThan(0);
  // Exact pins (a PyPI name, optional extras, ==version: 2026.10.9, 2.8.3.post2 or 0.14.0.1).
  for (const l of pins)
    expect(l).toMatch(/^[A-Za-z][\w.-]*(\[[\w,-]+\])?==\d+(\.\d+)+(\.?post\d+)?$/);
  if ('power-limit.sh' in files) expect(plan.hardware.powerLimitFraction).toBeLessThan(1);
  if (c.engine === 'vllm' || c.engine === 'sglang' || c.engine === 'llama.cpp') {
    // The `--from` reader reads serve.sh back to the plan's layout and sizes (test/serving/from.test.ts: bytes).
    const back = readBack(String(files['serve.sh'])).flags;
    expect(back.framework).toBe(c.engine);
    expect(back.tp ?? 1).toBe(c.tp);
    expect(back.pp ?? 1).toBe(c.pp);
    expect(back.gpus ?? 1).toBe(o.gpus);
    expect(back.batch).toBe(o.batch);
    expect(back.seq).toBe(o.seq);
    expect(back['kv-cache-dtype']).toBe(o.kvCacheDtype === 'fp8' ? 'fp8' : undefined);
    expect(back['prefix-cache']).toBe(o.prefixCacheFraction || undefined);
  }
  switch (c.engine) {
    case 'hf-trainer':
    case 'hf-fsdp':
    case 'hf-deepspeed': {
      if (files['hf-args.json'] === undefined && c.engine === 'hf-fsdp') {
        checkAxolotlSharded(plan, files);
        break;
      }
      const rl = o.objective !== undefined && o.objective !== 'sft';
      const args: Record<string, unknown> & { trainer: string; bnb_config: unknown } = (
        rl ? hfTrlArgsSchema : hfArgsSchema
      ).parse(files['hf-args.json']);
      const cfg = checkTrainer(plan, args, files);
      expect(cfg.per_device_train_batch_size).toBe(c.microBatch);
      expect(cfg.gradient_accumulation_steps).toBe(c.gradAccum);
      expect(cfg.gradient_checkpointing).toBe(c.checkpointing !== 'none');
      if (c.method === 'qlora') expect(args.bnb_config).toMatchObject({ load_in_4bit: true });
      const acc = accelerateSchema.parse(files['accelerate.yaml']);
      // GRPO server mode: Accelerate runs the trainers; the vLLM server's GPUs are launch.sh's.
      expect(acc.num_processes).toBe(plan.hardware.gpus - (o.rolloutGpus ?? 0));
      expect(acc.num_machines).toBe(plan.hardware.nodes);
      if (plan.hardware.nodes > 1) {
        expect(acc.main_process_port).toBe(29500);
        expect(String(files['launch.sh'])).toMatch(/--machine_rank "\$\{NODE_RANK/);
        const slurm = String(files['slurm.sbatch']);
        expect(slurm).toContain(`#SBATCH --nodes=${plan.hardware.nodes}`);
        expect(slurm).toContain(`#SBATCH --gpus-per-node=${plan.hardware.gpusPerNode}`);
      } else expect(files['slurm.sbatch']).toBeUndefined();
      const kind = { 'hf-trainer': c.dp > 1 ? 'MULTI_GPU' : 'NO', 'hf-fsdp': 'FSDP' }[
        c.engine as 'hf-trainer' | 'hf-fsdp'
      ];
      if (c.engine === 'hf-deepspeed') {
        expect(acc.distributed_type).toBe('DEEPSPEED');
        const ds = deepspeedSchema.parse(files['deepspeed.json']);
        expect(ds.zero_optimization.stage).toBe(c.zero);
        expect(ds.train_micro_batch_size_per_gpu).toBe(c.microBatch);
        expect(ds.gradient_accumulation_steps).toBe(c.gradAccum);
        expect(ds.zero_optimization.offload_optimizer !== undefined).toBe(c.offload !== 'none');
      } else {
        expect(acc.distributed_type).toBe(kind);
        expect(files['deepspeed.json']).toBeUndefined();
      }
      if (c.engine === 'hf-fsdp') {
        // FSDP1 (4-bit plans, rule fsdp2-bnb-4bit) names the strategy; FSDP2 takes a bool.
        const v1 = acc.fsdp_config?.fsdp_version === 1;
        expect(acc.fsdp_config?.fsdp_reshard_after_forward).toBe(
          v1 ? (c.zero === 3 ? 'FULL_SHARD' : 'SHARD_GRAD_OP') : c.zero === 3,
        );
        expect(acc.fsdp_config?.fsdp_offload_params).toBe(c.offload === 'optimizer+params');
      }
      // axolotl.yaml beside TRL's files (rl: keys for preference / RL), except GRPO server mode and fp32 weights
      // under 16-bit compute outside DeepSpeed, which axolotl cannot load (engines/hf/axolotl.ts fp32WeightsBlocker).
      const fp32Under16 =
        o.weights === 'fp32' && o.compute !== 'fp32' && c.engine !== 'hf-deepspeed';
      if (o.rollout === 'vllm-server' || fp32Under16) expect(files['axolotl.yaml']).toBeUndefined();
      else {
        const axo = axolotlSchema.parse(files['axolotl.yaml']);
        expect(axo.rl).toBe(args.trainer === 'sft' ? undefined : o.objective);
      }
      break;
    }
    case 'torchtune': {
      const t = torchtuneSchema.parse(files['torchtune.yaml']);
      expect(t.batch_size).toBe(c.microBatch);
      expect(t.gradient_accumulation_steps).toBe(c.gradAccum);
      expect(t.enable_activation_checkpointing).toBe(c.checkpointing !== 'none');
      break;
    }
    case 'vllm': {
      const sh = String(files['serve.sh']);
      expect(sh).toContain(`--tensor-parallel-size ${c.tp}`);
      expect(sh).toContain(`--pipeline-parallel-size ${c.pp}`);
      expect(sh).toContain(`--max-num-seqs ${o.batch}`);
      expect(sh).toContain(`--max-model-len ${o.seq}`);
      // DP attention: one server of dp data-parallel ranks, expert parallel over all its GPUs.
      expect(sh.match(/vllm serve/g)?.length).toBe(c.dpAttention ? 1 : c.dp);
      if (c.dpAttention) {
        expect(sh).toContain(`--data-parallel-size ${c.dp}`);
        expect(sh).toContain('--enable-expert-parallel');
      }
      for (const f of serveCommands(sh)) {
        // fp8 (E4M3) on 8.9+, fp8_e5m2 below (engines/kernels.ts fp8KvFlag).
        const kv = fp8KvFlag('vllm', findGpu(plan.hardware.gpuId).computeCapability);
        expect(f['--kv-cache-dtype']).toBe(o.kvCacheDtype === 'fp8' ? kv : 'auto');
        if (o.weights === 'nf4') expect(f['--quantization']).toBe('bitsandbytes');
      }
      break;
    }
    case 'sglang': {
      const cmds = serveCommands(String(files['serve.sh']));
      // DP attention: one server; --tp-size counts all its GPUs, --max-running-requests all ranks' requests.
      const ranks = c.dpAttention ? c.dp : 1;
      expect(cmds).toHaveLength(c.dp / ranks);
      for (const f of cmds) {
        expect(f['--tp-size']).toBe(String(c.tp * ranks));
        expect(f['--pp-size']).toBe(String(c.pp));
        expect(f['--context-length']).toBe(String(o.seq));
        expect(f['--max-running-requests']).toBe(String(o.batch * ranks));
        if (c.dpAttention) expect(f['--dp-size']).toBe(String(ranks));
      }
      break;
    }
    case 'llama.cpp': {
      const cmds = serveCommands(String(files['serve.sh']));
      expect(cmds).toHaveLength(c.dp);
      const layers = plan.options.gpuLayers;
      for (const f of cmds) {
        if (layers !== undefined) expect(f['-ngl']).toBe(String(layers));
        const cpuMoe = plan.options.cpuMoeLayers;
        expect(f['--n-cpu-moe']).toBe(cpuMoe === undefined ? undefined : String(cpuMoe));
        expect(f['-np']).toBe(String(o.batch));
        expect(f['-c']).toBe(String(o.seq * o.batch));
        expect(f['-ctk']).toBe(o.kvCacheDtype === 'fp8' ? 'q8_0' : 'f16');
      }
      break;
    }
    case 'hf-generate': {
      const py = String(files['generate.py']);
      expect(py).toContain(`BATCH = ${o.batch}`);
      expect(py).toContain(`MAX_LEN = ${o.seq}`);
      break;
    }
    case 'unsloth': {
      const u = files['unsloth-args.json'] as {
        from_pretrained: { max_seq_length: number; load_in_4bit: boolean };
        sft_config?: Record<string, unknown>;
        dpo_config?: Record<string, unknown>;
        grpo_config?: Record<string, unknown>;
      };
      // SFTConfig, or the DPO / GRPO trainer's config block (engines/unsloth/objective.ts).
      const t = (u.sft_config ?? u.dpo_config ?? u.grpo_config)!;
      expect(t.per_device_train_batch_size).toBe(c.microBatch);
      expect(t.gradient_accumulation_steps).toBe(c.gradAccum);
      expect(u.from_pretrained.max_seq_length).toBeGreaterThanOrEqual(o.seq);
      expect(u.from_pretrained.load_in_4bit).toBe(o.weights === 'nf4');
      expect(String(files['train_unsloth.py'])).toMatch(/^from unsloth import/m);
      break;
    }
    case 'torchtitan': {
      const py = String(files['torchtitan_vramplan.py']);
      expect(py).toContain(`parallelism.tensor_parallel_degree = ${c.tp}`);
      expect(String(files['launch.sh'])).toContain('torchrun');
      break;
    }
    case 'litgpt': {
      const y = files['litgpt.yaml'] as { train: Record<string, number> };
      expect(y.train.micro_batch_size).toBe(c.microBatch);
      expect(y.train.global_batch_size).toBe(c.microBatch * c.gradAccum * c.dp);
      expect(String(files['launch.sh'])).toMatch(/litgpt finetune_(lora|full)/);
      break;
    }
    default:
      throw new Error(`${plan.id}: ranked on ${c.engine}, which vramplan writes no files for`);
  }
}

describe('launch every top-10 plan of every shipped scenario', () => {
  for (const file of SCENARIOS)
    it(
      file,
      async () => {
        const result = await planScenarioFile(file, { top: 10 });
        const arch = resolveModel(modelSpecOf(file, loadScenario(file)), { flag: 'model' });
        expect(result.plans.length).toBeGreaterThan(0);
        for (const p of result.plans) {
          // No behaviour rule of the plan's engine forbids it, and its launcher can write it.
          const at = { arch, options: p.options, accum: p.choices.gradAccum };
          expect(ruleBroken(at), p.id).toBeNull();
          expect(launchBlocker(at), p.id).toBeNull();
          const bundle = buildLaunch(launchInputOfPlan(p, arch, arch.hfId ?? arch.id));
          expect(bundle.engine).toBe(p.choices.engine);
          const files: Record<string, unknown> = {};
          for (const f of bundle.files) files[f.path] = parsesAs(f.path, f.content);
          checkPlan(p, files);
          if (p.options.method !== 'inference') rereads(p, arch, bundle.files);
        }
        checkPendingScripts();
      },
      60_000,
    );
});

describe('launch every top-10 plan beyond the shipped scenarios', () => {
  // Families torchtune has builders for and not, GPUs with and without bf16 / flash, every launcher.
  const models = ['llama-3-8b', 'qwen2.5-0.5b', 'mixtral-8x7b'];
  const gpus = ['t4', 'rtx-4090', 'h100-sxm'];
  // Every engine family, and the default search (every engine vramplan launches).
  const frameworks = [
    'hf',
    'deepspeed',
    'torchtune',
    'vllm',
    'unsloth',
    'litgpt',
    'torchtitan',
    undefined,
  ] as const;
  for (const model of models)
    for (const kind of ['fine-tune', 'inference'] as const)
      it(`${model} ${kind}`, () => {
        let ranked = 0;
        for (const gpu of gpus)
          for (const framework of frameworks) {
            const serves = framework === 'vllm' || framework === 'hf' || framework === undefined;
            const trains = framework !== 'vllm';
            if (kind === 'inference' ? !serves : !trains) continue;
            const job =
              kind === 'fine-tune'
                ? { kind, seq: 1024, globalBatch: 16 }
                : { kind, context: 4096, concurrency: 8 };
            const scenario = scenarioSchema.parse({
              name: 'grid',
              model,
              job,
              hardware: { owned: [{ gpu, count: 8 }], counts: { min: 1, max: 8 } },
              ...(framework ? { search: { framework } } : {}),
            });
            const input = planInputOf('grid.yaml', scenario);
            for (const p of plan({ ...input, top: 10 }).plans) {
              const bundle = buildLaunch(launchInputOfPlan(p, input.arch, 'm'));
              expect(bundle.engine).toBe(p.choices.engine);
              const files: Record<string, unknown> = {};
              for (const f of bundle.files) files[f.path] = parsesAs(f.path, f.content);
              checkPlan(p, files);
              ranked++;
            }
          }
        checkPendingScripts();
        expect(ranked).toBeGreaterThan(0);
      }, 300_000);
});

describe('folders a practitioner starts as written', () => {
  it('a 16-GPU plan on two 8-GPU machines: ranks, rendezvous and SLURM', () => {
    const scenario = scenarioSchema.parse({
      name: 'two nodes',
      model: 'llama-2-70b',
      job: { kind: 'fine-tune', methods: ['full'], seq: 2048, globalBatch: 64 },
      hardware: {
        // An offer whose machines share a scale-out network (catalogs/offers clusterNetwork: EFA on p5).
        rent: { offers: ['aws-h100-sxm-reserved-8x'] },
        counts: { min: 16, max: 16 },
      },
      search: { framework: 'hf' },
    });
    const input = planInputOf('two-nodes.yaml', scenario);
    const plans = plan({ ...input, top: 3 }).plans;
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.hardware.nodes).toBe(2);
      const bundle = buildLaunch(launchInputOfPlan(p, input.arch, 'meta-llama/Llama-2-70b-hf'));
      const files: Record<string, unknown> = {};
      for (const f of bundle.files) files[f.path] = parsesAs(f.path, f.content);
      checkPlan(p, files);
      const acc = accelerateSchema.parse(files['accelerate.yaml']);
      expect([acc.num_machines, acc.num_processes]).toEqual([2, 16]);
      expect(String(files['slurm.sbatch'])).toMatch(/srun --nodes=2 .*NODE_RANK=\$SLURM_NODEID/);
      if (p.choices.engine === 'hf-deepspeed')
        expect(String(files.hostfile)).toMatch(/node1 slots=8\nnode2 slots=8/);
    }
    checkPendingScripts();
  });

  it('a 70B served on two 48 GB cards: vLLM tensor parallel 2 within the planned memory', () => {
    const scenario = scenarioSchema.parse({
      name: '70b on two a6000',
      model: 'llama-2-70b',
      job: { kind: 'inference', context: 4096, concurrency: 4 },
      hardware: { owned: [{ gpu: 'rtx-a6000', count: 2 }], counts: { min: 2, max: 2 } },
      // 8-bit weights (70 GB) need both cards; int4 (35 GB) now runs one replica per card (Marlin).
      search: { framework: 'vllm', weights: ['int8', 'fp8'] },
    });
    const input = planInputOf('serve.yaml', scenario);
    const plans = plan({ ...input, top: 5 }).plans;
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.choices.engine).toBe('vllm');
      const x = launchInputOfPlan(p, input.arch, 'meta-llama/Llama-2-70b-hf');
      const bundle = buildLaunch(x);
      const files: Record<string, unknown> = {};
      for (const f of bundle.files) files[f.path] = parsesAs(f.path, f.content);
      checkPlan(p, files);
      const sh = String(files['serve.sh']);
      expect(sh).toContain('--tensor-parallel-size 2');
      // vLLM's budget is the fraction the plan's pool was filled to, and covers the plan's peak (weights, KV
      // of max-num-seqs x max-model-len, the filled pool) within a MiB of rounding.
      const util = Number(/--gpu-memory-utilization ([\d.]+)/.exec(sh)?.[1]);
      expect(util).toBe(0.9);
      expect(util * x.gpu.memoryMiB * 2 ** 20 + 2 ** 20).toBeGreaterThanOrEqual(
        p.memory.deviceBytes,
      );
      expect(String(files['check.sh'])).toContain('/v1/completions');
    }
    checkPendingScripts();
  });
});
