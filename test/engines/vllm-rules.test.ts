// vLLM rules (src/core/engines/vllm/rules.ts) and serve.sh: each rule fires on the configuration it names and
// not on its neighbour; serve.sh's flags are all vLLM flags; requirements pin vllm in its own environment.
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { ruleReason, type Rule } from '../../src/core/engines/rules.js';
import { VLLM_RULES, VLLM_SERVE_FLAGS } from '../../src/core/engines/vllm/rules.js';
import { VLLM_PROFILE } from '../../src/core/engines/vllm/profile.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

function input(model: string, flags: Record<string, unknown>, gpu = 'a100-80gb-sxm'): LaunchInput {
  const arch = resolveModel(model);
  const options = optionsFromFlags({ method: 'inference', framework: 'vllm', ...flags });
  const g = findGpu(gpu);
  return {
    arch,
    options,
    gpu: g,
    gradAccum: 1,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, g),
    modelRef: arch.hfId ?? model,
  };
}
// The flags refuse cp > 1 for inference; the rule still guards options built by hand.
const withCp = (x: LaunchInput): LaunchInput => ({ ...x, options: { ...x.options, cp: 2 } });
const rule = (id: string): Rule => VLLM_RULES.find((r) => r.id === id)!;
const ri = (x: LaunchInput) => ({ arch: x.arch, options: x.options, dp: 1, accum: 1 });

// llama-3.1-8b has 32 attention heads: tp 3 does not divide them, tp 2 does.
const CASES: Record<string, [LaunchInput, LaunchInput]> = {
  'vllm-tp-divides-heads': [
    input('llama-3.1-8b', { gpus: 3, tp: 3 }),
    input('llama-3.1-8b', { gpus: 2, tp: 2 }),
  ],
  'vllm-no-bnb-fp4': [
    input('llama-3.1-8b', { weights: 'fp4' }),
    input('llama-3.1-8b', { weights: 'nf4' }),
  ],
  'vllm-no-context-parallel': [
    withCp(input('llama-3.1-8b', { gpus: 2 })),
    input('llama-3.1-8b', { gpus: 2 }),
  ],
};

describe('vLLM rules', () => {
  it('are the profile rules', () => expect(VLLM_PROFILE.rules).toBe(VLLM_RULES));
  for (const [id, [on, off]] of Object.entries(CASES))
    it(`${id} fires on its configuration and not on the neighbour`, () => {
      expect(rule(id).applies(ri(on))).toBe(true);
      expect(rule(id).applies(ri(off))).toBe(false);
      expect(launchBlocker(on)).toBe(ruleReason(rule(id)));
      expect(launchBlocker(off)).toBeNull();
      expect(buildLaunch(off).files.map((f) => f.path)).toContain('serve.sh');
    });
});

describe('serve.sh', () => {
  const plans: [Record<string, unknown>, string?][] = [
    [{}],
    [{ weights: 'nf4', gpus: 2, pp: 2 }],
    [{ weights: 'fp8', gpus: 4, tp: 2 }],
    [{ weights: 'fp8' }, 'a100-80gb-sxm'],
    [{ weights: 'int4', compute: 'fp16' }],
  ];
  for (const [flags, gpu] of plans)
    it(`${JSON.stringify(flags)}: every flag is a vllm 0.33 serve flag`, () => {
      const b = buildLaunch(input('llama-3.1-8b', flags, gpu));
      const sh = b.files.find((f) => f.path === 'serve.sh')!.content;
      const cmd = sh.replace(/\\\n\s*/g, ' ');
      const words = cmd
        .split('\n')
        .filter((l) => l.includes('vllm serve'))
        .flatMap((l) => l.split(/\s+/));
      const used = words.filter((w) => w.startsWith('--'));
      expect(used.length).toBeGreaterThan(6);
      for (const f of used) expect(VLLM_SERVE_FLAGS as readonly string[], f).toContain(f);
      const qi = words.indexOf('--quantization');
      if (qi >= 0) expect(['bitsandbytes', 'fp8']).toContain(words[qi + 1]);
      expect(['bfloat16', 'float16']).toContain(words[words.indexOf('--dtype') + 1]);
      expect(words[words.indexOf('--kv-cache-dtype') + 1]).toBe('auto');
    });
  it('requirements pin vllm 0.33.0 in its own environment, with no torch pin of ours', () => {
    const req = buildLaunch(input('llama-3.1-8b', {})).files.find(
      (f) => f.path === 'requirements.txt',
    )!;
    expect(req.content).toMatch(/^vllm==0\.33\.0$/m);
    expect(req.content).toMatch(/vLLM environment/);
    expect(req.content).toMatch(/docs\/launch-libs-2026-12-06\.md/);
    expect(req.content).not.toMatch(/^torch==/m);
  });
});

describe('generate.py', () => {
  it("passes dtype= (transformers v5) and pins the Hugging Face engines' transformers and torch", () => {
    const x = input('llama-3.1-8b', { weights: 'nf4' });
    const b = buildLaunch({ ...x, options: { ...x.options, framework: 'hf' } });
    const py = b.files.find((f) => f.path === 'generate.py')?.content ?? '';
    expect(py).toMatch(/^ {4}dtype=torch\.bfloat16,$/m);
    expect(py).not.toMatch(/torch_dtype=/);
    expect(py).toMatch(/BitsAndBytesConfig\(load_in_4bit=True/);
    const req = b.files.find((f) => f.path === 'requirements.txt')!.content;
    expect(req).toMatch(new RegExp(`^transformers==${HF_PINS.transformers}$`, 'm'));
    expect(req).toMatch(new RegExp(`^torch==${HF_PINS.torch}$`, 'm'));
    expect(req).toMatch(
      new RegExp(`^bitsandbytes==${HF_PINS.bitsandbytes.replaceAll('.', '\\.')}$`, 'm'),
    );
  });
});
