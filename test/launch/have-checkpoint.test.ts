// A serving plan in a format the scenario says the user already holds (`job.haveCheckpoints`): the planner makes
// nothing (plan/made-weights.ts), and serve.sh points MODEL at a placeholder the README has the user set, with no
// quantize step and no online quantization over their checkpoint.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { haveCheckpointsOf } from '../../src/commands/launch-run.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { launchInputOf } from '../helpers/launch.js';

const flags = (framework: string, weights: string) => ({
  method: 'inference',
  weights,
  framework,
  gpus: 1,
  batch: 8,
  seq: 4096,
});

const launched = (framework: string, weights: string, have?: string[]) => {
  const x = launchInputOf('qwen3-0.6b', 'h100-sxm', flags(framework, weights), {
    gradAccum: 1,
    ...(have ? { haveCheckpoints: have as never } : {}),
  });
  const out = buildLaunch(x).outputs.find((o) => o.ok)!;
  if (!out.ok) throw new Error('no output');
  return { sh: out.files.find((f) => f.path === 'serve.sh')!.content, notes: out.notes };
};

describe('a checkpoint the scenario says the user has', () => {
  it('vLLM int4: MODEL is a placeholder the notes name, with no llm-compressor step', () => {
    const made = launched('vllm', 'int4');
    expect(made.sh).toMatch(/llm-compressor/);
    const own = launched('vllm', 'int4', ['int4']);
    expect(own.sh).not.toMatch(/llm-compressor|make one first/);
    expect(own.sh).toMatch(/MODEL=\$\{MODEL:-YOUR-int4-CHECKPOINT\}/);
    expect(own.notes.join('\n')).toMatch(/set MODEL in serve\.sh to your own int4 checkpoint/);
    expect(own.notes.join('\n')).not.toMatch(/make one as serve\.sh says/);
  });

  it('SGLang nvfp4: no step, and another format listed changes nothing', () => {
    expect(launched('sglang', 'nvfp4', ['int4']).sh).toMatch(/llm-compressor/);
    const own = launched('sglang', 'nvfp4', ['nvfp4']);
    expect(own.sh).not.toMatch(/llm-compressor/);
    expect(own.notes).not.toContain('make the checkpoint first: see serve.sh');
    expect(own.notes.join('\n')).toMatch(/your own nvfp4 checkpoint/);
  });

  it('llama.cpp GGUF: a local .gguf placeholder loaded with -m, no convert or llama-quantize', () => {
    expect(launched('llama.cpp', 'q5_k_m').sh).toMatch(/llama-quantize/);
    const own = launched('llama.cpp', 'q5_k_m', ['q5_k_m']);
    expect(own.sh).not.toMatch(/llama-quantize|convert_hf_to_gguf/);
    expect(own.sh).toMatch(/YOUR-q5_k_m-CHECKPOINT\.gguf/);
    expect(own.sh).toMatch(/-m "\$MODEL"/);
  });

  it('llama.cpp MXFP4 with no published GGUF: the converted file is not made either', () => {
    expect(launched('llama.cpp', 'mxfp4').sh).toMatch(/convert_hf_to_gguf/);
    const own = launched('llama.cpp', 'mxfp4', ['mxfp4']);
    expect(own.sh).not.toMatch(/convert_hf_to_gguf/);
    expect(own.sh).toMatch(/MODEL=\$\{MODEL:-YOUR-mxfp4-CHECKPOINT\}/);
  });

  it("is read from a serving scenario's job.haveCheckpoints", () => {
    const s = scenarioSchema.parse({
      name: 'own',
      model: 'qwen3-0.6b',
      job: { kind: 'inference', context: 8192, concurrency: 8, haveCheckpoints: ['int4'] },
      hardware: { owned: [{ gpu: 'h100-sxm', count: 1 }] },
    });
    expect(haveCheckpointsOf(s)).toEqual(['int4']);
  });
});

describe('a checkpoint the user has, through the plan files', () => {
  const scratch = scratchDir('vramplan-have-checkpoint-');
  afterAll(scratch.remove);
  const scenario = (have: boolean) => {
    const file = join(scratch.dir, `own-${have}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        name: 'own int4',
        model: 'qwen3-0.6b',
        job: {
          kind: 'inference',
          context: 4096,
          concurrency: 8,
          ...(have ? { haveCheckpoints: ['int4'] } : {}),
        },
        hardware: { owned: [{ gpu: 'h100-sxm', count: 1 }] },
        search: { weights: ['int4'], engines: ['vllm'] },
      }),
    );
    return file;
  };
  const serveSh = (args: string[], out: string) => {
    const r = runCli([...args, '--out', join(scratch.dir, out)]);
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(join(scratch.dir, out, 'serve.sh'), 'utf8');
  };

  it('launch --from-plan writes no quantize step for a plan the scenario has weights for', () => {
    expect(cliBuilt()).toBe(true);
    for (const have of [false, true]) {
      const plans = join(scratch.dir, `plans-${have}.json`);
      const p = runCli(['plan', scenario(have), '--export', plans]);
      expect(p.status, p.stderr).toBe(0);
      const exported = JSON.parse(readFileSync(plans, 'utf8'));
      // No quantize GPU-hours where the user has the weights: the plan marks nothing to make.
      expect(exported.plans[0].choices.weightsToMake === undefined).toBe(have);
      expect(exported.plans[0].cost.quantizeUsd === undefined).toBe(have);
      const fromPlan = serveSh(['launch', '--from-plan', plans], `from-plan-${have}`);
      const fromScenario = serveSh(['launch', scenario(have)], `from-scenario-${have}`);
      expect(fromPlan).toBe(fromScenario);
      expect(/llm-compressor/.test(fromPlan)).toBe(!have);
      expect(/YOUR-int4-CHECKPOINT/.test(fromPlan)).toBe(have);
    }
  });
});
