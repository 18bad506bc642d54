// What the engines themselves run or refuse, read in their sources: Unsloth's float8_training hardware check
// (unsloth 2026.10.9 models/float8_training.py), LitGPT's --precision transformer-engine through Lightning 2.6.5's
// Fabric, torchtune v0.6.1's recipes, llama-server's draft-model-only speculation, and DeepSpeed AutoTP under the
// Trainer (transformers 5.14.1 integrations/deepspeed.py, deepspeed 0.19.8 module_inject/auto_tp.py).
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { float8GpuRefusal } from '../../src/core/engines/engines-runs.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { estimateChecks } from '../../src/commands/estimate-run.js';

const llama = resolveModel('llama-3.1-8b');
const small = resolveModel('llama-3.2-1b');
const UNSLOTH_FLOAT8 =
  'https://pypi.org/project/unsloth/2026.10.9/ (wheel) unsloth/models/float8_training.py';

function checks(arch: typeof llama, flags: Record<string, unknown>, gpu: string) {
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  return { o, run: () => estimateChecks(arch, o, flags as never, findGpu(gpu)) };
}

describe("Unsloth's float8_training hardware check", () => {
  const fp8 = { framework: 'unsloth', method: 'full', compute: 'fp8' };
  it('refuses compute capability 8.9 (tensorwise scaling raises there), citing the wheel lines', () => {
    for (const gpu of ['rtx-4090', 'l40s']) {
      const c = checks(small, fp8, gpu);
      expect(c.run, gpu).toThrow(/--compute: got 'fp8'/);
      expect(c.run, gpu).toThrow(/NaN gradients/);
      expect(c.run, gpu).toThrow(`${UNSLOTH_FLOAT8}:206-216`);
    }
    expect(float8GpuRefusal('unsloth', 'fp8', '8.9')).toMatch(/--framework torchtitan/);
  });
  it('estimates 9.0, 10.0 and 12.0 with a note naming how float8_training runs there', () => {
    for (const gpu of ['h100-sxm', 'b200', 'rtx-5090']) {
      const c = checks(small, fp8, gpu);
      const notes = c.run().join('\n');
      expect(notes, gpu).toMatch(/float8_training=True runs it only on compute capability 12\.x/);
      expect(notes, gpu).toMatch(/Float8LinearConfig\.from_recipe_name\("tensorwise"\)/);
      const e = buildEstimate(small, c.o, findGpu(gpu));
      expect(Number.isFinite(e.time!.stepSeconds), gpu).toBe(true);
    }
  });
  it('leaves the other engines on 8.9 to the kernels check alone', () => {
    expect(float8GpuRefusal('torchtitan', 'fp8', '8.9')).toBeNull();
    expect(float8GpuRefusal('hf-trainer', 'fp8', '8.9')).toBeNull();
    expect(float8GpuRefusal('unsloth', 'fp8', '9.0')).toBeNull();
    const c = checks(small, { framework: 'torchtitan', method: 'full', compute: 'fp8' }, 'l40s');
    expect(c.run).not.toThrow();
  });
});

describe('FP8 training refusals that stand cite what the engine runs', () => {
  const refusal = (flags: Record<string, unknown>) => {
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    return engineRefusal(llama, o, flags);
  };
  it("LitGPT: Fabric's transformer-engine precision fails in finetune_full's strict load and under FSDP", () => {
    for (const compute of ['fp8', 'mxfp8']) {
      const why = refusal({ framework: 'litgpt', method: 'full', compute })!;
      expect(why, compute).toMatch(
        /lightning\/2\.6\.5\/ \(wheel\) lightning\/fabric\/connector\.py:477-480/,
      );
      expect(why, compute).toMatch(/_extra_state/);
      expect(why, compute).toMatch(/litgpt\/utils\.py#L383-L398/);
      expect(why, compute).toMatch(/plugins\/precision\/fsdp\.py:54-59/);
      expect(why, compute).not.toMatch(/litgpt\/model\.py\)/);
    }
    expect(refusal({ framework: 'litgpt', method: 'full' })).toBeNull();
  });
  it('a bitsandbytes optimizer refused under sharding cites the optimizer set, not FP8, whatever --compute says', () => {
    const flags = {
      framework: 'litgpt',
      method: 'full',
      optimizer: 'adamw-8bit',
      gpus: 4,
      zero: 3,
      checkpointing: 'full',
    };
    for (const compute of ['bf16', 'fp8']) {
      const why = refusal({ ...flags, compute })!;
      expect(why, compute).toMatch(/^litgpt no adamw-8bit under sharding \(/);
      expect(why, compute).toMatch(/litgpt\/utils\.py\)$/);
      expect(why, compute).not.toMatch(/FP8|transformer-engine/);
    }
  });
  it('torchtune: no v0.6.1 recipe converts to FP8 (enable_fp8_training came after the tag)', () => {
    const why = refusal({ framework: 'torchtune', method: 'full', compute: 'fp8' })!;
    expect(why).toMatch(/v0\.6\.1\/recipes\/full_finetune_distributed\.py/);
    expect(why).toContain('pytorch/torchtune#2546');
  });
});

describe('speculative decoding on llama.cpp', () => {
  const serve = {
    framework: 'llama.cpp',
    method: 'inference',
    weights: 'q4_k_m',
    batch: 8,
    seq: 4096,
  };
  it('is refused naming llama-server at its pin: a draft model only (common/arg.cpp)', () => {
    for (const speculative of ['eagle3', 'mtp', 'ngram']) {
      const flags = { ...serve, speculative, 'spec-acceptance': 0.5 };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      const why = engineRefusal(llama, o, flags)!;
      expect(why, speculative).toMatch(
        new RegExp(`^llama\\.cpp: --speculative: got '${speculative}'; `),
      );
      expect(why, speculative).toMatch(
        /llama\.cpp\/blob\/25d5b0c53f9a146f3d7a99a18610d9d623b5041e\/common\/arg\.cpp/,
      );
      expect(why, speculative).toMatch(/-md\/--model-draft/);
      expect(why, speculative).not.toMatch(/\n/);
    }
  });
  it('the same serve without --speculative is estimated; DP attention keeps its own refusal', () => {
    const o = withEngineDefaults(optionsFromFlags(serve), serve);
    expect(engineRefusal(llama, o, serve)).toBeNull();
    const dp = { ...serve, gpus: 2, 'dp-attention': true, speculative: 'eagle3' };
    const od = withEngineDefaults(optionsFromFlags(dp), dp);
    expect(engineRefusal(llama, od, dp)).toMatch(/no expert parallelism or DP attention/);
  });
});

describe('tensor parallelism on hf-deepspeed (DeepSpeed AutoTP)', () => {
  const full = {
    framework: 'hf-deepspeed',
    method: 'full',
    gpus: 8,
    zero: 3,
    checkpointing: 'full',
    seq: 4096,
  };
  it('estimates a full fine-tune over TP x ZeRO with a note naming autotp_size and its sources', () => {
    const tp2 = checks(llama, { ...full, tp: 2 }, 'h100-sxm');
    const notes = tp2.run().join('\n');
    expect(notes).toMatch(
      /--tp 2 on hf-deepspeed is DeepSpeed AutoTP \(tensor_parallel\.autotp_size 2/,
    );
    expect(notes).toMatch(/integrations\/deepspeed\.py deepspeed_init/);
    expect(notes).toMatch(/deepspeed\/module_inject\/auto_tp\.py:405-470/);
    const e2 = buildEstimate(llama, tp2.o, findGpu('h100-sxm'));
    const e1 = buildEstimate(llama, checks(llama, full, 'h100-sxm').o, findGpu('h100-sxm'));
    expect(Number.isFinite(e2.time!.stepSeconds)).toBe(true);
    // The split linears' activations and the per-rank matmuls shrink; ZeRO-3 already splits the weights.
    expect(e2.time!.stepSeconds).toBeLessThan(e1.time!.stepSeconds);
  });
  it('refuses LoRA and QLoRA over AutoTP naming the rule and auto_tp.py; the launcher still writes no TP', () => {
    for (const method of ['lora', 'qlora']) {
      const flags = { ...full, method, tp: 2, zero: 2 };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      const why = engineRefusal(llama, o, flags)!;
      expect(why, method).toMatch(/rule deepspeed-autotp-adapters/);
      expect(why, method).toMatch(/auto_tp\.py#L405-L470/);
    }
    expect(ENGINE_PROFILES['hf-deepspeed'].tp).toBe(false);
  });
  it('refuses --sequence-parallel and --loss-parallel over AutoTP, which splits the linears only', () => {
    for (const extra of [{ 'sequence-parallel': true }, { 'loss-parallel': true }]) {
      const flags = { ...full, tp: 2, ...extra };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(engineRefusal(llama, o, flags), JSON.stringify(extra)).toMatch(
        /rule deepspeed-autotp-no-sequence-parallel: deepspeed ==0\.19\.8, .*auto_tp\.py#L449-L470/,
      );
    }
  });
});

describe('context parallelism on hf-deepspeed', () => {
  it('runs as DeepSpeed Ulysses where DeepSpeed runs it, keeping the ZeRO and host-step refusals', () => {
    const ok = { framework: 'hf-deepspeed', method: 'full', gpus: 8, cp: 2, zero: 3 };
    expect(engineRefusal(llama, withEngineDefaults(optionsFromFlags(ok), ok), ok)).toBeNull();
    const paged = { ...ok, offload: 'optimizer', optimizer: 'paged-adamw-8bit' };
    expect(engineRefusal(llama, withEngineDefaults(optionsFromFlags(paged), paged), paged)).toMatch(
      /^hf-deepspeed: --optimizer: got 'paged-adamw-8bit'; /,
    );
  });
});
