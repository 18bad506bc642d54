// A checkpoint that ships MXFP4 experts (gpt-oss) on llama.cpp: its own MXFP4 GGUF is searched and launched; a
// 4-bit GGUF, which llama-quantize will not make from MXFP4 tensors, is not offered.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { weightDtypes } from '../../src/core/plan/candidates.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { inputOf } from './plan-input.js';
import { serveCommands, modelOf, readBack } from './serve-line.js';

const gptOss120bOnH100 = (engines?: string[]) =>
  inputOf('serve-8b-64-users-24gb.yaml', (s) => {
    s.model = 'gpt-oss-120b';
    s.hardware.owned = [{ gpu: 'h100-sxm', count: 1 }];
    if (s.job.kind !== 'inference') throw new Error('a serving scenario');
    s.job = { ...s.job, context: 8192, promptTokens: 2048, concurrency: 8, slo: undefined };
    if (engines) s.search = { ...s.search, engines: engines as never };
  });

describe('MXFP4 checkpoints on llama.cpp', () => {
  it('offers no 4-bit GGUF requantized from a checkpoint that ships MXFP4, the native format first', () => {
    const names = weightDtypes('inference', undefined, 'mxfp4').map((w) => w.weights);
    expect(names[0]).toBe('mxfp4');
    expect(names).not.toContain('q4_k_m');
    expect(names).not.toContain('q4_0');
    expect(names).toContain('q8_0');
    // A 16-bit checkpoint keeps its k-quants.
    expect(weightDtypes('inference', undefined, null).map((w) => w.weights)).toContain('q4_k_m');
  });
  it('plans gpt-oss-120b on llama.cpp in its MXFP4 GGUF, never Q4_K_M', () => {
    const input = gptOss120bOnH100(['llama.cpp']);
    const out = plan({ ...input, top: 20 });
    expect(out.plans.length).toBeGreaterThan(0);
    expect(out.plans[0]!.choices.weights).toBe('mxfp4');
    expect(out.plans.map((p) => p.choices.weights)).not.toContain('q4_k_m');
  });
  it('launches the published MXFP4 GGUF with -hf, with no llama-quantize step', () => {
    const input = gptOss120bOnH100(['llama.cpp']);
    const best = plan({ ...input, top: 1 }).plans[0]!;
    const x = launchInputOfPlan(best, input.arch, 'openai/gpt-oss-120b');
    const sh = String(buildLaunch(x).files.find((f) => f.path === 'serve.sh')!.content);
    expect(modelOf(sh)).toBe('ggml-org/gpt-oss-120b-GGUF');
    expect(serveCommands(sh)[0]!['-hf']).toBe('ggml-org/gpt-oss-120b-GGUF');
    expect(sh).not.toMatch(/llama-quantize/);
    // --from reads the MXFP4 GGUF back as the plan's weights.
    expect(readBack(sh).flags.weights).toBe('mxfp4');
  });
  it('converts an MXFP4 checkpoint without a published GGUF, its experts kept MXFP4', () => {
    const input = gptOss120bOnH100(['llama.cpp']);
    const best = plan({ ...input, top: 1 }).plans[0]!;
    const x = launchInputOfPlan(best, { ...input.arch, hfId: null }, 'some-org/gpt-oss-finetune');
    const sh = String(buildLaunch(x).files.find((f) => f.path === 'serve.sh')!.content);
    expect(sh).toMatch(/convert_hf_to_gguf\.py base --outfile model-mxfp4\.gguf --outtype q8_0/);
    expect(sh).not.toMatch(/llama-quantize/);
    expect(serveCommands(sh)[0]!['-m']).toBe('model-mxfp4.gguf');
    expect(readBack(sh).flags.weights).toBe('mxfp4');
  });
});
