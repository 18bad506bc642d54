// vLLM's MXFP4 MoE on Hopper: 0.33.0 takes triton_kernels' matmul_ogs ahead of Marlin on 9.x
// (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py `_get_priority_backends_for_gpt_oss`) unless the engine
// argument `--moe-backend marlin` asks for Marlin; the estimate times Marlin below 10.0, so the vLLM launch on a 9.x
// card passes it, and only there. The older VLLM_MXFP4_USE_MARLIN variable is read nowhere in 0.33.0.
import { describe, expect, it } from 'vitest';
import { mxfp4MoeBackendArgs } from '../../src/core/engines/vllm/launch.js';
import { launchInputOf, serveShOf } from '../helpers/launch.js';

const serve = (gpu: string, weights: 'mxfp4' | 'bf16', gpus = 2) => {
  const x = launchInputOf('gpt-oss-120b', gpu, {
    method: 'inference',
    weights,
    framework: 'vllm',
    gpus,
    tp: gpus,
    batch: 8,
    seq: 4096,
  });
  return { sh: serveShOf(x.arch, x.options, x.gpu, x.estimate), time: x.estimate.time };
};

describe("vLLM's MXFP4 MoE kernel on Hopper", () => {
  it('launches the Marlin MoE the estimate times on an H100 and an H200', () => {
    for (const gpu of ['h100-sxm', 'h200-sxm']) {
      const { sh, time } = serve(gpu, 'mxfp4');
      expect(time?.settings.quantFormat).toBe('marlin');
      expect(sh).toContain('--moe-backend marlin');
      expect(sh).not.toContain('VLLM_MXFP4_USE_MARLIN');
    }
  });

  it('leaves the default where vLLM runs what is timed: Marlin on Ampere, FlashInfer on Blackwell', () => {
    expect(serve('a100-80gb-sxm', 'mxfp4').sh).not.toContain('--moe-backend');
    expect(serve('b200', 'mxfp4').sh).not.toContain('--moe-backend');
    expect(serve('h100-sxm', 'bf16', 4).sh).not.toContain('--moe-backend');
  });

  it('asks for it on CUDA 9.x only, never on an AMD target', () => {
    const o = { weights: 'mxfp4' } as Parameters<typeof mxfp4MoeBackendArgs>[0];
    expect(mxfp4MoeBackendArgs(o, '9.0')).toEqual(['--moe-backend marlin']);
    for (const cc of ['8.0', '8.6', '8.9', '10.0', '12.0', 'gfx942', null])
      expect(mxfp4MoeBackendArgs(o, cc)).toEqual([]);
  });
});
