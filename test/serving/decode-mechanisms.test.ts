// Decode mechanisms added with the second serving calibration round: a forward-pass-only timing
// (llama-bench) leaves the server loop out; MoE expert bytes per layer for architectures split into several
// layer groups (gpt-oss); MXFP4 checkpoints keep attention and lm_head in BF16; bitsandbytes 4-bit under a
// CUDA-graph replay (vLLM) costs graph kernels, not Python dispatch.
import { describe, expect, it } from 'vitest';
import { estimateTime, modelFacts } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { moeCallLatency } from '../../src/core/time/moe-call.js';
import { FLASHINFER_TRTLLM_NVFP4_MOE } from '../../src/core/engines/moe-call.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const infer = (o: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  batch: 1,
  seq: 128,
  ...o,
});
const phase = (r: ReturnType<typeof estimateTime>, p: string) =>
  r.phases.find((x) => x.phase === p)?.seconds ?? 0;

describe('forward-pass-only timings (llama-bench)', () => {
  const arch = resolveModel('meta-llama/Llama-3.1-8B');
  const o = infer({ framework: 'llama.cpp', weights: 'q4_k_m' });
  const gpu = findGpu('rtx-4090');
  it('leave out the server loop and the per-slot sampling, nothing else', () => {
    const t: TimeOptions = defaultTimeOptions(1);
    const served = estimateTime(arch, o, gpu, t);
    const bench = estimateTime(arch, o, gpu, { ...t, decodeOnly: true });
    const fw = FRAMEWORKS['llama.cpp'];
    const loop = (fw.stepHostSeconds ?? 0) + (fw.seqHostSeconds ?? 0);
    expect(loop).toBeGreaterThan(0);
    expect(served.stepSeconds - bench.stepSeconds).toBeCloseTo(loop, 9);
    expect(phase(bench, 'decode-weights')).toBe(phase(served, 'decode-weights'));
  });
});

describe('MoE expert bytes (gpt-oss: sliding and full attention layer groups)', () => {
  const arch = resolveModel('openai/gpt-oss-20b');
  const m = modelFacts(arch);
  it('counts one expert per MoE layer once, whatever the number of layer groups', () => {
    expect(arch.groups.length).toBeGreaterThan(1);
    // gate_up (2880 x 5760) and down (2880 x 2880) per expert (config.json: hidden 2880, intermediate 2880).
    expect(m.expertWeightsPerLayer).toBe(2880 * 5760 + 2880 * 2880);
    expect(m.linearTotal - m.expertWeightsPerLayer * m.experts * m.moeLayers).toBeGreaterThan(0);
  });
  it('a batch-1 step reads attention and lm_head in BF16: more than the same model all in NVFP4', () => {
    const gpu = findGpu('h100-sxm');
    const t = defaultTimeOptions(1);
    const step = (weights: EstimateOptions['weights']) =>
      phase(estimateTime(arch, infer({ framework: 'vllm', weights }), gpu, t), 'decode-weights');
    // NVFP4 (4.5 bits, every linear) through the same Marlin path below Blackwell reads less than MXFP4 (4.25 bits)
    // only because MXFP4 leaves self_attn and lm_head in BF16 (modules_to_not_convert).
    expect(step('mxfp4')).toBeGreaterThan(step('nvfp4') * 1.08);
  });
  // llama.cpp's MXFP4 MoE GGUF stores the non-expert tensors and the output in Q8_0 (llama-quant.cpp MXFP4_MOE), all
  // read through its GGUF kernels: the dense part at Q8_0's 8.5 bits instead of BF16's 16. Its Q8_0 file keeps the
  // experts in MXFP4 too (model/native-weights.ts ggufLinearBytes), so the two read the same bytes.
  it("llama.cpp's MXFP4 GGUF reads the non-expert linears and lm_head as Q8_0 through its GGUF kernels", () => {
    const gpu = findGpu('rtx-6000-ada');
    const t = defaultTimeOptions(1);
    const o = infer({ framework: 'llama.cpp', weights: 'mxfp4' });
    const r = estimateTime(arch, o, gpu, t);
    expect(r.settings.quantFormat).toBe('gguf');
    const q8 = estimateTime(arch, { ...o, weights: 'q8_0' }, gpu, t);
    expect(phase(q8, 'decode-weights') / phase(r, 'decode-weights')).toBeCloseTo(1, 2);
    // Against the same layers all in Q8_0 (a float checkpoint of that shape: no native MXFP4 experts; same kernels,
    // same rate): the step's weight read scales with its bytes.
    const all8 = estimateTime({ ...arch, quant: null }, { ...o, weights: 'q8_0' }, gpu, t);
    const dense = m.linearTotal - m.expertWeightsPerLayer * m.experts * m.moeLayers + m.lmHead;
    const experts = m.expertWeightsPerLayer * m.topK * m.moeLayers;
    const q80 = 8.5008 / 8; // GGUF_BPW.q8_0 (model/dtypes.ts)
    const mx = 0.5 + 1 / 32; // E2M1 values plus one E8M0 scale per 32
    const expected = (dense * q80 + experts * mx) / ((dense + experts) * q80);
    // Within 3% (lm_head is read outside the linears' kernel efficiency); BF16 non-expert tensors would be 1.9x this.
    const ratio = phase(r, 'decode-weights') / phase(all8, 'decode-weights');
    expect(Math.abs(ratio / expected - 1)).toBeLessThan(0.03);
  });
});

describe('bitsandbytes 4-bit under CUDA graphs (vLLM)', () => {
  it('adds graph-kernel gaps per linear, not eager Python dispatch', () => {
    const arch = resolveModel('meta-llama/Llama-3.1-8B');
    const gpu = findGpu('a100-80gb-sxm');
    const t = defaultTimeOptions(1);
    const nf4 = estimateTime(arch, infer({ framework: 'vllm', weights: 'nf4' }), gpu, t);
    const bf16 = estimateTime(arch, infer({ framework: 'vllm', weights: 'bf16' }), gpu, t);
    // 224 linears x ~4 extra ops at 2.5 us is well under 5 ms; at 21 us of eager dispatch it was ~19 ms.
    expect(phase(nf4, 'overhead') - phase(bf16, 'overhead')).toBeLessThan(5e-3);
    expect(phase(nf4, 'overhead') - phase(bf16, 'overhead')).toBeGreaterThan(0);
  });
});

// NVFP4 experts on Blackwell run FlashInfer's CUTLASS MoE under vLLM and SGLang's TensorRT-LLM-gen MoE on SM100
// (engines/moe-call.ts, engines/sglang/memory.ts): each MoE layer's call at small batch costs its own latency, not the
// Triton fused_moe figure; other dtypes and other GPUs keep that figure.
describe('NVFP4 MoE calls on Blackwell (vLLM, SGLang)', () => {
  const arch = resolveModel('meta-llama/Llama-4-Scout-17B-16E');
  const m = modelFacts(arch);
  const t: TimeOptions = defaultTimeOptions(1);
  const call = FRAMEWORKS.vllm.moeCallSeconds!;
  // vLLM on a B200: FlashInfer's CUTLASS MoE (SGLang's SM100 default, the TensorRT-LLM-gen MoE, is checked below).
  for (const [framework, gpu] of [['vllm', 'b200']] as const)
    it(`${framework}: a batch-1 step on a ${gpu} pays the NVFP4 call on every MoE layer, fading with the batch`, () => {
      const fw = FRAMEWORKS[framework].moeCallSeconds!;
      expect(fw.blackwellNvfp4).toBe(call.blackwellNvfp4);
      const card = findGpu(gpu);
      const nvfp4Call = moeCallLatency(
        FRAMEWORKS[framework],
        Number(card.computeCapability),
        'nvfp4',
      );
      expect(nvfp4Call).toBe(call.blackwellNvfp4);
      const o = infer({ framework, weights: 'nvfp4', seq: 2148, promptTokens: 2048 });
      const one = estimateTime(arch, o, card, t);
      // FP8 experts on the same card take the Triton figure; their bytes are twice NVFP4's, so the NVFP4 step
      // is slower by at least the calls' difference less the FP8 experts' extra bytes at the card's bandwidth.
      const fp8 = estimateTime(arch, { ...o, weights: 'fp8' }, card, t);
      const callsGap = m.moeLayers * (nvfp4Call - fw.blackwell);
      expect(one.stepSeconds - fp8.stepSeconds).toBeGreaterThan(callsGap * 0.5);
      // At batch 64 the calls' bytes have grown past the fade: the per-token step is far cheaper.
      const many = estimateTime(arch, { ...o, batch: 64 }, card, t);
      expect(many.stepSeconds / 64).toBeLessThan(one.stepSeconds / 8);
    });

  // sglang==0.5.23: modelopt_quant.py create_moe_runner takes flashinfer_trtllm from compute capability 10.0 and
  // arg_groups/overrides.py sets flashinfer_cutlass on SM110/SM120; vLLM keeps its CUTLASS figure on all of Blackwell.
  it('SGLang times NVFP4 experts with the TensorRT-LLM-gen MoE on SM100 and the CUTLASS MoE on SM120', () => {
    expect(moeCallLatency(FRAMEWORKS.sglang, 10, 'nvfp4')).toBe(FLASHINFER_TRTLLM_NVFP4_MOE);
    expect(moeCallLatency(FRAMEWORKS.sglang, 10.3, 'nvfp4')).toBe(FLASHINFER_TRTLLM_NVFP4_MOE);
    expect(moeCallLatency(FRAMEWORKS.sglang, 12, 'nvfp4')).toBe(call.blackwellNvfp4);
    expect(moeCallLatency(FRAMEWORKS.vllm, 10, 'nvfp4')).toBe(call.blackwellNvfp4);
    expect(moeCallLatency(FRAMEWORKS.sglang, 10, null)).toBe(call.blackwell);
    expect(FLASHINFER_TRTLLM_NVFP4_MOE).toBeLessThan(call.blackwellNvfp4!);
  });
});
