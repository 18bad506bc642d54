// LoRA over torchtitan's FP8 linears (--framework torchtitan --method lora --compute fp8/mxfp8): LoRAConverter
// after Float8LinearConverter subclasses Float8Linear (torchtitan 0.3.0 components/lora.py), estimated with the
// bf16 LoRA memory and the base matmuls at the 8-bit rate, the discarded weight gradient included.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { float8LoraNote } from '../../src/core/engines/engines-runs.js';
import { float8Work } from '../../src/core/time/float8.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { runCli } from '../helpers/run-cli.js';

const BASE = { model: 'llama-3.1-8b', seq: 4096, gpus: 8, zero: 3 };

function estimate(flags: Record<string, unknown>, gpu = 'h100-sxm') {
  const arch = resolveModel('llama-3.1-8b');
  const asked = optionsFromFlags({ ...BASE, framework: 'torchtitan', ...flags });
  const options = onEngine(asked, engineOf(asked));
  return { est: buildEstimate(arch, options, findGpu(gpu)), options };
}

describe('torchtitan LoRA over Float8Linear', () => {
  it('is accepted on torchtitan and still refused, naming torchtitan, on engines without it', () => {
    for (const compute of ['fp8', 'mxfp8'])
      expect(() =>
        optionsFromFlags({ ...BASE, framework: 'torchtitan', method: 'lora', compute }),
      ).not.toThrow();
    expect(() =>
      optionsFromFlags({ ...BASE, framework: 'torchtune', method: 'lora', compute: 'fp8' }),
    ).toThrow(/--compute: got 'fp8'.*adapts them with LoRA on --framework torchtitan/);
    expect(() =>
      optionsFromFlags({ ...BASE, framework: 'torchtitan', method: 'qlora', compute: 'fp8' }),
    ).toThrow(/--compute: got 'fp8'/);
  });

  it('keeps the bf16 LoRA memory: the frozen base keeps its dtype and the casts are dynamic', () => {
    const f8 = estimate({ method: 'lora', compute: 'fp8' }).est;
    const bf16 = estimate({ method: 'lora', compute: 'bf16' }).est;
    expect(f8.perGpu.allocatedBytes).toBe(bf16.perGpu.allocatedBytes);
    expect(f8.perGpu.breakdown).toEqual(bf16.perGpu.breakdown);
  });

  it("runs the base's input and weight gradients in 8 bits, where bf16 LoRA runs the input gradient only", () => {
    const { options: lora } = estimate({ method: 'lora', compute: 'fp8' });
    const { options: full } = estimate({ method: 'full', compute: 'fp8' });
    const m = modelFacts(resolveModel('llama-3.1-8b'));
    const w = float8Work(m, lora, 4096, 8);
    expect(w.bwdFlops).toBe(2 * w.fwdFlops);
    expect(w.bwdCounted).toBe(w.fwdFlops);
    const wf = float8Work(m, full, 4096, 8);
    expect(wf.bwdCounted).toBe(wf.bwdFlops);
    // Same casts as a full fine-tune: torchao casts grad_output and input for grad_weight either way.
    expect(w.castBwdBytes).toBe(wf.castBwdBytes);
  });

  it('gains less from FP8 than a full fine-tune: its backward runs a GEMM bf16 LoRA skips', () => {
    const step = (method: string, compute: string) =>
      estimate({ method, compute, compile: true }, 'b200').est.time!.stepSeconds;
    const loraGain = step('lora', 'bf16') / step('lora', 'fp8');
    const fullGain = step('full', 'bf16') / step('full', 'fp8');
    expect(fullGain).toBeGreaterThan(1);
    expect(loraGain).toBeLessThan(fullGain);
  });

  it('says what it runs and what is approximate, in one note', () => {
    const { options } = estimate({ method: 'lora', compute: 'fp8' });
    const note = float8LoraNote('torchtitan', options);
    expect(note).toMatch(/components\/lora\.py/);
    expect(note).toMatch(/Approximate: memory is the bf16 LoRA estimate/);
    expect(float8LoraNote('torchtitan', { ...options, compute: 'bf16' })).toBeNull();
    const r = runCli([
      'estimate',
      '--model',
      'llama-3.1-8b',
      '--framework',
      'torchtitan',
      '--method',
      'lora',
      '--compute',
      'fp8',
      '--gpus',
      '8',
      '--zero',
      '3',
      '--gpu',
      'h100-sxm',
      '--json',
    ]);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { warnings: string[] };
    expect(out.warnings.some((w) => w.startsWith('LoRA over FP8 linears'))).toBe(true);
  });
});
