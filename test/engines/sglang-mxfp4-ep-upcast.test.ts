// SGLang 0.5.23 under `--ep-size` above 1 below SM100 (engines/sglang/mxfp4-runner.ts): gpt_oss.py sets no MoE runner
// (triton_kernel only at ep_size 1), so Mxfp4MoEMethod.process_weights_after_loading upcasts the routed experts to BF16
// (mxfp4.py's final `else`: upcast_from_mxfp) and runs the Triton fused_moe over them. On Hopper the launch asks for
// Marlin, which takes EP (its expert_map): MXFP4 stays MXFP4 there; SM100 runs flashinfer_mxfp4 whatever the EP size.
import { describe, expect, it } from 'vitest';
import { sglangUpcastsMxfp4Experts } from '../../src/core/engines/sglang/mxfp4-runner.js';
import { plan } from '../../src/core/plan/index.js';
import { GiB } from '../../src/core/units.js';
import { launchInputOf, serveShOf } from '../helpers/launch.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';

const serve = (gpu: string, ep: number, weights: 'mxfp4' | 'bf16' = 'mxfp4') => {
  const x = launchInputOf('gpt-oss-120b', gpu, {
    method: 'inference',
    weights,
    framework: 'sglang',
    gpus: 2,
    tp: 2,
    ep,
    batch: 16,
    seq: 4096,
  });
  return { sh: serveShOf(x.arch, x.options, x.gpu, x.estimate), e: x.estimate };
};

describe('SGLang MXFP4 experts under expert parallelism', () => {
  it('the table: upcast at EP > 1 on 8.x and 9.x unless Marlin is launched (9.x), never at EP 1 or on SM100/SM120', () => {
    expect(sglangUpcastsMxfp4Experts(8.0, 2)).toBe(true);
    expect(sglangUpcastsMxfp4Experts(8.9, 4)).toBe(true);
    expect(sglangUpcastsMxfp4Experts(8.0, 1)).toBe(false);
    expect(sglangUpcastsMxfp4Experts(9.0, 2)).toBe(false);
    expect(sglangUpcastsMxfp4Experts(10.0, 2)).toBe(false);
    expect(sglangUpcastsMxfp4Experts(12.0, 2)).toBe(false);
  });

  it('A100 EP 2 holds and reads BF16 experts (the BF16 estimate, kernel triton-bf16) and does not fit', () => {
    const { sh, e } = serve('a100-80gb', 2);
    const bf16 = serve('a100-80gb', 2, 'bf16').e;
    expect(sh).toContain('--ep-size 2');
    expect(sh).not.toContain('--moe-runner-backend');
    expect(e.perGpu.breakdown.weights).toBe(bf16.perGpu.breakdown.weights);
    expect(e.perGpu.breakdown.weights).toBeGreaterThan(100 * GiB);
    expect(e.fits).toBe(false);
    expect(e.time?.settings.quantFormat).toBe('triton-bf16');
    expect(e.time?.decodeTokensPerSecond).toBe(bf16.time?.decodeTokensPerSecond);
  });

  it('A100 EP 1 keeps MXFP4 experts through triton_kernels (triton) and fits', () => {
    const { sh, e } = serve('a100-80gb', 1);
    expect(sh).not.toContain('--ep-size');
    expect(e.perGpu.breakdown.weights).toBeLessThan(40 * GiB);
    expect(e.fits).toBe(true);
    expect(e.time?.settings.quantFormat).toBe('triton');
  });

  it('H100 EP 2 launches Marlin with --ep-size 2 and keeps MXFP4 experts; B200 EP 2 keeps flashinfer_mxfp4', () => {
    const h = serve('h100-sxm', 2);
    expect(h.sh).toContain('--ep-size 2');
    expect(h.sh).toContain('--moe-runner-backend marlin');
    expect(h.e.time?.settings.quantFormat).toBe('marlin');
    expect(h.e.perGpu.breakdown.weights).toBeLessThan(40 * GiB);
    const b = serve('b200', 2);
    expect(b.sh).not.toContain('--moe-runner-backend');
    expect(b.e.time?.settings.quantFormat).toBe('cutlass');
    expect(b.e.perGpu.breakdown.weights).toBeLessThan(40 * GiB);
  });

  it('the planner proposes no SGLang MXFP4 plan with EP on two A100s (BF16 experts do not fit)', () => {
    const s = loadScenario('test/fixtures/scenarios/gpt-oss-mxfp4-2xa100.yaml');
    const hw = resolveHardware(s);
    const { plans } = plan({
      scenario: s,
      arch: resolveModel(s.model),
      hardware: hw.options,
      circuits: hw.circuits,
    });
    expect(plans.length).toBeGreaterThan(0);
    const sglangEp = plans.filter(
      (p) =>
        p.choices.engine === 'sglang' && (p.options.ep ?? 1) > 1 && p.options.weights === 'mxfp4',
    );
    expect(sglangEp).toEqual([]);
  });
});
