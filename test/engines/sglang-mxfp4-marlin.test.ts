// SGLang's MXFP4 MoE runner by compute capability (engines/sglang/mxfp4-runner.ts): for gpt-oss, 0.5.23 turns
// `--moe-runner-backend auto` into triton_kernel wherever triton_kernels imports (sglang-kernel 0.4.10 ships it) and
// ep_size is 1 (arg_groups/model_overrides/gpt_oss.py), flashinfer_mxfp4 on SM100 and SM120; its Marlin MXFP4 MoE
// runs on SM90, SM100 and SM120 only (layers/quantization/mxfp4.py: "MXFP4 Marlin requires SM90+."). The estimate
// times Marlin on 9.x and the launch asks for it there, and only there; below SM90 it names triton_kernels' matmul
// (`triton`) and refuses `--quant-format marlin`.
import { describe, expect, it } from 'vitest';
import { estimateChecks } from '../../src/commands/estimate-run.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { launchInputOf, serveShOf } from '../helpers/launch.js';
import {
  SGLANG_MXFP4_MARLIN_FROM,
  sglangMxfp4Runner,
} from '../../src/core/engines/sglang/mxfp4-runner.js';

const serve = (gpu: string, weights: 'mxfp4' | 'bf16', gpus = 2, model = 'gpt-oss-120b') => {
  const x = launchInputOf(model, gpu, {
    method: 'inference',
    weights,
    framework: 'sglang',
    gpus,
    tp: gpus,
    batch: 8,
    seq: 4096,
  });
  return { sh: serveShOf(x.arch, x.options, x.gpu, x.estimate), time: x.estimate.time };
};

/** `vramplan estimate` of gpt-oss-20b on one `gpu`: its checks, then the estimate; the refusal's line if refused. */
function estimate(gpu: string, more: RawFlags = {}) {
  const flags: RawFlags = {
    model: 'gpt-oss-20b',
    gpu,
    method: 'inference',
    framework: 'sglang',
    weights: 'mxfp4',
    batch: 8,
    seq: 4096,
    ...more,
  };
  const arch = resolveModel('gpt-oss-20b');
  const g = findGpu(gpu);
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  try {
    estimateChecks(arch, options, flags, g);
  } catch (e) {
    return { refusal: (e as Error).message, time: undefined };
  }
  return { refusal: null, time: buildEstimate(arch, options, g).time };
}

describe("SGLang's MXFP4 MoE kernel on Hopper", () => {
  it('launches the Marlin MoE the estimate times on an H100 and an H200', () => {
    for (const gpu of ['h100-sxm', 'h200-sxm']) {
      const { sh, time } = serve(gpu, 'mxfp4');
      expect(time?.settings.quantFormat).toBe('marlin');
      expect(sh).toContain('--moe-runner-backend marlin');
    }
  });

  it('leaves the runner to SGLang on Blackwell and for a 16-bit checkpoint', () => {
    expect(serve('b200', 'mxfp4').sh).not.toContain('--moe-runner-backend');
    expect(serve('rtx-5090', 'mxfp4', 1, 'gpt-oss-20b').sh).not.toContain('--moe-runner-backend');
    expect(serve('h100-sxm', 'bf16', 4).sh).not.toContain('--moe-runner-backend');
  });
});

describe("SGLang's MXFP4 MoE kernel on Ampere and Ada", () => {
  const below = ['a100-80gb-sxm', 'rtx-3090', 'rtx-a6000', 'rtx-4090', 'l40s'];

  it("names triton_kernels' matmul, the runner SGLang picks there, timed as the Marlin family", () => {
    for (const gpu of below) {
      const { refusal, time } = estimate(gpu);
      expect(refusal, gpu).toBeNull();
      expect(time?.settings.quantFormat, gpu).toBe('triton');
      expect(time!.decodeTokensPerSecond, gpu).toBeGreaterThan(0);
    }
    // vLLM runs Marlin there (engines/vllm/mxfp4-backend.ts): its name is unchanged.
    const vllm = estimate('a100-80gb-sxm', { framework: 'vllm' });
    expect(vllm.time?.settings.quantFormat).toBe('marlin');
  });

  it('refuses --quant-format marlin in one line naming the field, the values it takes and mxfp4.py', () => {
    for (const gpu of below) {
      const { refusal } = estimate(gpu, { 'quant-format': 'marlin' });
      expect(refusal, gpu).toMatch(/^--quant-format: got 'marlin'; expected nothing/);
      expect(refusal, gpu).toContain('one of cutlass, gguf with --weights mxfp4 under sglang');
      expect(refusal, gpu).toContain('MXFP4 Marlin requires SM90+.');
      expect(refusal, gpu).toContain(
        'https://pypi.org/project/sglang/0.5.23/ wheel, sglang/srt/layers/quantization/mxfp4.py',
      );
      expect(refusal, gpu).not.toContain('\n');
    }
    // SM90 and SM120 run it (is_sm90, is_sm120).
    for (const gpu of ['h100-sxm', 'rtx-5090'])
      expect(estimate(gpu, { 'quant-format': 'marlin' }).refusal, gpu).toBeNull();
  });

  it('never writes --moe-runner-backend below SM90', () => {
    for (const gpu of ['a100-80gb-sxm', 'l40s']) {
      expect(serve(gpu, 'mxfp4').sh, gpu).not.toContain('--moe-runner-backend');
    }
    for (const gpu of ['rtx-3090', 'rtx-4090'])
      expect(serve(gpu, 'mxfp4', 1, 'gpt-oss-20b').sh, gpu).not.toContain('--moe-runner-backend');
  });
});

describe("SGLang's MXFP4 runner table", () => {
  it('reads triton_kernel on 8.x and 9.x, flashinfer_mxfp4 on 10.x and 12.x, Marlin from 9.0', () => {
    expect(SGLANG_MXFP4_MARLIN_FROM).toBe(9);
    for (const cc of [8.0, 8.6, 8.9])
      expect(sglangMxfp4Runner(cc)).toEqual({
        auto: 'triton_kernel',
        marlin: false,
        autoUnderEp: 'upcast',
      });
    expect(sglangMxfp4Runner(9.0)).toEqual({
      auto: 'triton_kernel',
      marlin: true,
      autoUnderEp: 'upcast',
    });
    for (const cc of [10.0, 12.0]) expect(sglangMxfp4Runner(cc)?.auto).toBe('flashinfer_mxfp4');
    expect(sglangMxfp4Runner(11.0)).toBeNull();
  });
});
