// A serving plan of a repository that ships AWQ/GPTQ int4 only: its fp8, int8 or nvfp4 would be made from 16-bit
// weights the repository does not hold (llm-compressor quantizes Linear layers; transformers loads AWQ as packed
// QuantLinear), and `--quantization fp8` over an awq config is a quantization-method mismatch
// (ModelConfig._verify_quantization). Such plans are neither searched nor launched; and serve.sh never writes
// an llm-compressor step together with `--quantization fp8`.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { launchBlocker } from '../../src/core/launch/index.js';
import { nativeWeights } from '../../src/core/model/native-weights.js';
import { weightDtypes } from '../../src/core/plan/candidates.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf, serveLaunchOf, serveShOf } from '../helpers/launch.js';

// Qwen's own AWQ release, as `--model Qwen/Qwen2.5-7B-Instruct-AWQ` reads its config.json (quant_method awq, 4 bits).
const awq = {
  ...resolveModel('qwen2.5-7b'),
  hfId: 'Qwen/Qwen2.5-7B-Instruct-AWQ',
  quant: { method: 'awq' as const, bits: 4, groupSize: 128, skipped: [] },
};

const flagsOf = (framework: string, weights: string) => ({
  method: 'inference',
  weights,
  framework,
  gpus: 1,
  batch: 8,
  seq: 4096,
});
const serving = (framework: string, weights: string) =>
  withEngineDefaults(optionsFromFlags(flagsOf(framework, weights)), flagsOf(framework, weights));

describe('serving a repository that ships AWQ int4 only', () => {
  it('is searched in int4 and the formats that need no 16-bit original, not fp8, int8 or nvfp4', () => {
    expect(nativeWeights(awq)).toBe('int4');
    const searched = weightDtypes('inference', undefined, 'int4', true).map((w) => w.weights);
    expect(searched[0]).toBe('int4');
    for (const w of ['fp8', 'int8', 'nvfp4']) expect(searched).not.toContain(w);
    // A 16-bit repository keeps them.
    const float = weightDtypes('inference', undefined, null, true).map((w) => w.weights);
    for (const w of ['fp8', 'int8', 'nvfp4']) expect(float).toContain(w);
  });

  it('is not launched in fp8, int8 or nvfp4 on vLLM or SGLang; int4 launches', () => {
    for (const framework of ['vllm', 'sglang']) {
      for (const weights of ['fp8', 'int8', 'nvfp4'])
        expect(launchBlocker({ arch: awq, options: serving(framework, weights) })).toMatch(
          /AWQ\/GPTQ int4 weights and no 16-bit ones/,
        );
      expect(launchBlocker({ arch: awq, options: serving(framework, 'int4') })).toBeNull();
      // The 16-bit model itself: fp8 quantized while loading.
      const base = resolveModel('qwen2.5-7b');
      expect(launchBlocker({ arch: base, options: serving(framework, 'fp8') })).toBeNull();
    }
    const gpu = findGpu('h100-sxm');
    const options = serving('vllm', 'fp8');
    const out = serveLaunchOf(awq, options, gpu, buildEstimate(awq, options, gpu));
    expect(out.outputs.some((o) => o.ok)).toBe(false);
  });

  it('serve.sh writes --quantization fp8 only over the base checkpoint, never beside a made one', () => {
    // gpt-oss ships MXFP4: an fp8 plan (asked for by flags) is made with llm-compressor, whose
    // compressed-tensors config the engine reads; the flag would be a quantization-method mismatch.
    for (const framework of ['vllm', 'sglang'] as const) {
      const made = launchInputOf('gpt-oss-20b', 'h100-sxm', flagsOf(framework, 'fp8'));
      const sh = serveShOf(made.arch, made.options, made.gpu, made.estimate);
      expect(sh).toMatch(/llm-compressor/);
      expect(sh).not.toContain('--quantization fp8');
      const online = launchInputOf('qwen2.5-14b', 'h100-sxm', flagsOf(framework, 'fp8'));
      const sh2 = serveShOf(online.arch, online.options, online.gpu, online.estimate);
      expect(sh2).toContain('--quantization fp8');
      expect(sh2).not.toMatch(/llm-compressor/);
    }
  });
});
