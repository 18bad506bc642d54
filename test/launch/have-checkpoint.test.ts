// A serving plan in a format the scenario says the user already holds (`job.haveCheckpoints`): the planner makes
// nothing (plan/made-weights.ts), and serve.sh points MODEL at a placeholder the README has the user set, with no
// quantize step and no online quantization over their checkpoint.
import { describe, expect, it } from 'vitest';
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
