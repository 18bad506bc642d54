// SGLang's MXFP4 MoE on Hopper: for gpt-oss, 0.5.23 turns `--moe-runner-backend auto` into triton_kernel wherever
// triton_kernels imports and ep_size is 1 (arg_groups/model_overrides/gpt_oss.py), while the estimate times Marlin
// below 10.0 (time/mxfp4-pad.ts mxfp4Path); its Marlin MXFP4 MoE runs on SM90+ (layers/quantization/mxfp4.py). The
// launch asks for Marlin on a 9.x card, and only there.
import { describe, expect, it } from 'vitest';
import { launchInputOf, serveShOf } from '../helpers/launch.js';

const serve = (gpu: string, weights: 'mxfp4' | 'bf16', gpus = 2) => {
  const x = launchInputOf('gpt-oss-120b', gpu, {
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
    expect(serve('h100-sxm', 'bf16', 4).sh).not.toContain('--moe-runner-backend');
  });
});
