// A plan is what runs: every top-10 plan of every shipped scenario is launched, each file it writes is read
// back with a real parser (JSON; YAML as PyYAML's 1.1 reads it; bash -n; Python's ast), and the keys that
// decide the run equal the plan's.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildLaunch } from '../../src/core/launch/index.js';
import type { Plan } from '../../src/core/plan.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, modelSpecOf } from '../../src/io/load-scenario.js';
import { planScenarioFile } from '../../src/io/plan-scenario.js';
import {
  accelerateSchema,
  axolotlSchema,
  deepspeedSchema,
  hfArgsSchema,
  torchtuneSchema,
} from '../fixtures/engine-schemas/index.js';

const SCENARIOS = readdirSync('scenarios')
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => join('scenarios', f));

const hasPython = spawnSync('python3', ['--version']).status === 0;

function parsesAs(path: string, content: string): unknown {
  if (path.endsWith('.json')) return JSON.parse(content);
  if (path.endsWith('.yaml')) return parse(content, { version: '1.1' });
  if (path.endsWith('.sh')) {
    const r = spawnSync('bash', ['-n'], { input: content, encoding: 'utf8' });
    expect(r.status, `${path}: ${r.stderr}`).toBe(0);
    return content;
  }
  if (path.endsWith('.py') && hasPython) {
    const r = spawnSync('python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], {
      input: content,
      encoding: 'utf8',
    });
    expect(r.status, `${path}: ${r.stderr}`).toBe(0);
  }
  return content;
}

function checkPlan(plan: Plan, files: Record<string, unknown>): void {
  const c = plan.choices;
  const o = plan.options;
  const engineFiles = Object.keys(files).filter((f) => f !== 'power-limit.sh');
  expect(engineFiles.length, `${plan.id}: no engine file`).toBeGreaterThan(0);
  if ('power-limit.sh' in files) expect(plan.hardware.powerLimitFraction).toBeLessThan(1);
  switch (c.engine) {
    case 'hf-trainer':
    case 'hf-fsdp':
    case 'hf-deepspeed': {
      const args = hfArgsSchema.parse(files['hf-args.json']);
      expect(args.sft_config.per_device_train_batch_size).toBe(c.microBatch);
      expect(args.sft_config.gradient_accumulation_steps).toBe(c.gradAccum);
      expect(args.sft_config.gradient_checkpointing).toBe(c.checkpointing !== 'none');
      if (c.method === 'qlora') expect(args.bnb_config).toMatchObject({ load_in_4bit: true });
      const acc = accelerateSchema.parse(files['accelerate.yaml']);
      expect(acc.num_processes).toBe(plan.hardware.gpus);
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
        expect(acc.fsdp_config?.fsdp_reshard_after_forward).toBe(c.zero === 3);
        expect(acc.fsdp_config?.fsdp_offload_params).toBe(c.offload === 'optimizer+params');
      }
      axolotlSchema.parse(files['axolotl.yaml']);
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
      expect(sh.match(/vllm serve/g)?.length).toBe(c.dp);
      break;
    }
    case 'hf-generate': {
      const py = String(files['generate.py']);
      expect(py).toContain(`BATCH = ${o.batch}`);
      expect(py).toContain(`MAX_LEN = ${o.seq}`);
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
        for (const plan of result.plans) {
          const bundle = buildLaunch(launchInputOfPlan(plan, arch, arch.hfId ?? arch.id));
          expect(bundle.engine).toBe(plan.choices.engine);
          const files: Record<string, unknown> = {};
          for (const f of bundle.files) files[f.path] = parsesAs(f.path, f.content);
          checkPlan(plan, files);
        }
      },
      60_000,
    );
});
