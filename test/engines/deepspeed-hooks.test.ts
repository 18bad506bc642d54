// DeepSpeed's ZeRO hooks on the host (engines/hf/memory.ts DEEPSPEED_HOOKS, time/zero-hooks.ts) and ZeRO's
// collectives on the compute stream under overlap_comm false (TimeOptions.serialComm).
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { backwardRegatherShares, gatherCollectives } from '../../src/core/time/zero-collectives.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { ALLREDUCE_LATENCY_NVLINK } from '../../src/core/time/nccl-ring.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { archFromHfConfig } from '../../src/core/model/index.js';
import { QWEN15_MOE_CONFIG } from '../helpers/model-configs.js';
import { readMeasured } from '../helpers/measured.js';

const gpu = findGpu('a100-80gb-sxm');
// The engines' memory frameworks: hf-deepspeed runs 'deepspeed', hf-fsdp runs 'hf' (their profiles).
const full = (zero: 0 | 1 | 2 | 3, framework: 'deepspeed' | 'hf'): EstimateOptions => ({
  ...defaultOptions('full'),
  framework,
  weights: 'bf16',
  compute: 'bf16',
  batch: 1,
  seq: 8192,
  checkpointing: 'full',
  attention: 'flash',
  zero,
  gpus: 8,
});
const arch = resolveModel('qwen3-30b-a3b');
const m = modelFacts(arch);
// transformers 4.x's per-expert loop under a DeepSpeed before v0.18.0: every module inside the MoE block is hooked.
const t: TimeOptions = { ...defaultTimeOptions(2), moeLoop: true, zeroMoeHooked: true };
const work = (o: EstimateOptions, time = t) => trainWork(m, o, time);
// ZeRO-3's measured price: host seconds per module pass that gathers a parameter (g) or none (b), the stream and
// event calls the measurement skipped as ops, and per gradient.
const h = FRAMEWORKS.deepspeed.zeroHooks!.host3!;
const ops = (g: number, b: number) => h.streamOps.gathering * g + h.streamOps.bare * b;
const sec = (g: number, b: number) => h.gathering * g + h.bare * b;
// A ZeRO-3 gradient on 8 ranks: its stream calls and the reduce's slicing for the ranks beyond the measurement's.
const gradOps8 = h.streamOps.gradient + (8 - h.ranks);
// A full fine-tune's gradients reduce-scatter a bucket at a time, DeepSpeed's default bucket unless 'auto'.
const reduceOps = h.collectiveOps * Math.ceil(m.total / h.reduceBucket.elements);
// A coalesced all-gather's per-rank host seconds on `dp` ranks: its slices beyond the measurement's ranks and each
// parameter's stream record per rank (DeepSpeed v0.14.4 _all_gather_dtype, AllGatherCoalescedHandle.wait).
const pr = h.coalescedPerRank;
const coal = (c: { groups: number; params: number }, dp: number) =>
  (dp - h.ranks) * (pr.bufferSlices * c.groups + pr.paramSlices * c.params) * pr.sliceSeconds +
  dp * c.params * pr.recordStreamSeconds;
const DEFAULT_BUCKETS = { prefetch: 5e7, persistence: 1e5 };
const seconds = (o: EstimateOptions, time = t) => trainStep(work(o, time), gpuRates(gpu, time));
// Under full recompute the backward gathers again the weights DeepSpeed's reuse window (1e9 elements) released after
// the recompute: in a per-expert loop the experts early in it (time/zero-collectives.ts backwardRegatherShares).
const REUSE = FRAMEWORKS.deepspeed.zeroHooks!.maxReuseDistance!;
const looped = backwardRegatherShares(m, full(3, 'deepspeed'), REUSE, true);
// One rank gathers nothing: its forward ops are the hooks' alone, without the collectives' CUDA calls.
const hooks1 = (o: EstimateOptions, time = t, mm = m) => trainWork(mm, { ...o, gpus: 1 }, time);

/** The toy Qwen2 of the grouping fixture (test/fixtures/measure): hidden 64, kv 32, MLP 128, 8 layers. */
function toyQwen2() {
  return modelFacts(
    archFromHfConfig(
      {
        model_type: 'qwen2',
        architectures: ['Qwen2ForCausalLM'],
        hidden_size: 64,
        intermediate_size: 128,
        num_hidden_layers: 8,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        vocab_size: 256,
        max_position_embeddings: 512,
        tie_word_embeddings: false,
        torch_dtype: 'bfloat16',
      } as never,
      { id: 'toy-qwen2', hfId: 'toy/qwen2' },
    ),
  );
}
describe('DeepSpeed ZeRO hooks', () => {
  it('are DeepSpeed’s: FSDP and the other engines gather whole wrapped units', () => {
    expect(FRAMEWORKS.deepspeed.zeroHooks).toMatchObject({
      moduleOps: 16,
      gradOps: { 2: 5, 3: 6 },
      reduceOps3: { perParam: 7, perRank: 1 },
      leafMoe: ['mixtral', 'qwen2_moe', 'qwen3_moe'],
    });
    expect(h.streamOps).toEqual({ gathering: 4, bare: 1, gradient: 3 });
    expect(FRAMEWORKS.hf.zeroHooks).toBeUndefined();
    expect(FRAMEWORKS.torchtitan.zeroHooks).toBeUndefined();
  });

  it('ZeRO-3’s host price is the measurement’s (scripts/measure/zero3-host.py), unscaled', () => {
    const fixture = readMeasured('zero3-host-cpu.json') as {
      versions: { deepspeed: string };
      setup: { zero3_ranks: number };
      summary_us: Record<string, number>;
    };
    expect(fixture.versions.deepspeed).toBe('0.14.4');
    expect(h.ranks).toBe(fixture.setup.zero3_ranks);
    for (const k of ['gathering', 'bare', 'gradient'] as const)
      expect(Math.abs(h[k] * 1e6 - fixture.summary_us[k]!), k).toBeLessThanOrEqual(0.5);
  });

  it('one all-gather per prefetch group, in forward and recompute: ProcessGroupNCCL’s CUDA calls', () => {
    expect(h.collectiveOps).toBe(8);
    expect(h.prefetchBucket).toEqual({ elements: 5e7, autoPerHidden2: 0.9 });
    expect(h.persistence).toEqual({ elements: 1e5, autoPerHidden: 10 });
    const o = full(3, 'deepspeed');
    const auto: TimeOptions = { ...t, zeroAutoBuckets: true };
    // Qwen3-30B-A3B's expert linears are 2048 x 768 = 1.57M elements: an 'auto' bucket of 0.9 x 2048^2 = 3.77M
    // closes at an expert's third, so the loop issues one all-gather an expert, 128 a layer.
    const buckets = { prefetch: 0.9 * 2048 * 2048, persistence: 10 * 2048 };
    const g = gatherCollectives(m, o, 48, buckets, { loop: true, hit: 128 });
    expect(g.loop).toBe(48 * 128);
    // DeepSpeed's 5e7 default gathers 32 expert linears at a time.
    const dflt = gatherCollectives(
      m,
      o,
      48,
      { prefetch: 5e7, persistence: 1e5 },
      { loop: true, hit: 128 },
    );
    expect(dflt.loop).toBeLessThan(g.loop / 8);
    const eight = work(o, auto);
    const one = work({ ...o, gpus: 1 }, auto);
    const hit = eight.expertsHit;
    const g8 = gatherCollectives(m, o, 48, buckets, { loop: true, hit });
    // The CUDA calls ride on the forward (and so the recompute), none on one rank: nothing is gathered there.
    expect(eight.zeroHookFwdOps - one.zeroHookFwdOps).toBeCloseTo(h.collectiveOps * g8.outside, 6);
    expect(eight.zeroHookLoopOps - one.zeroHookLoopOps).toBeCloseTo(h.collectiveOps * g8.loop, 6);
    // Backward gathers every expert again without full recompute; under it, only the experts the reuse window
    // released after the recompute: Qwen3-30B-A3B's 128 experts of 4.7M elements a layer keep the last 106 (twice the
    // later experts' elements within 1e9), and gather the first 22 again.
    expect(looped.loop).toBeCloseTo(22 / 128, 6);
    const none = work({ ...o, checkpointing: 'none' }, auto);
    expect(none.zeroHookLoopBwdOps - eight.zeroHookLoopBwdOps).toBeCloseTo(
      h.collectiveOps * g8.loop * (1 - looped.loop),
      6,
    );
  });

  it('the grouping counts what DeepSpeed v0.14.4 issued on a CPU, two passes a micro-batch', () => {
    // scripts/measure/zero3-collectives.py: a toy Qwen2 (hidden 64, 8 layers) with LoRA r 2 on every linear,
    // reentrant checkpointing, two gloo ranks, the live budget spanning 1.1 and 4.3 layers (the 72B's and 7B's).
    const fixture = readMeasured('zero3-collectives-cpu.json') as {
      versions: { deepspeed: string };
      results: Record<string, { all_gathers: number; layers: number; lora_rank: number }>;
    };
    expect(fixture.versions.deepspeed).toBe('0.14.4');
    const toy = toyQwen2();
    const lora: EstimateOptions = {
      ...full(3, 'deepspeed'),
      method: 'lora',
      loraRank: 2,
      loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
    };
    const perPass = gatherCollectives(
      toy,
      lora,
      8,
      { prefetch: Math.floor(0.9 * 64 * 64), persistence: 64 },
      {
        loop: false,
        hit: 0,
      },
    ).outside;
    for (const key of ['live_layers_1.1', 'live_layers_4.3']) {
      const measured = fixture.results[key]!.all_gathers;
      // Forward and recompute (the embedding and output layer's few gathers left out): at least what DeepSpeed
      // issued less a tenth, at most a third more (a longer live budget keeps more parameters between passes).
      expect(2 * perPass, key).toBeGreaterThanOrEqual(0.9 * measured);
      expect(2 * perPass, key).toBeLessThanOrEqual(1.35 * measured);
    }
  });

  it('a coalesced all-gather slices and records each parameter once per rank; a lone weight does neither', () => {
    // The toy Qwen2 of the grouping fixture (hidden 64, kv 32, MLP 128) at its 'auto' buckets: a bucket of 3,686
    // elements, a persistence threshold of 640.
    const toy = toyQwen2();
    const b = { prefetch: Math.floor(0.9 * 64 * 64), persistence: 640 };
    const perLayer = (o: EstimateOptions) => {
      const at = (n: number) => gatherCollectives(toy, o, n, b, { loop: false, hit: 0 });
      const [a, c] = [at(4), at(5)];
      return {
        groups: c.outside - a.outside,
        coalesced: c.coalesced.outside.groups - a.coalesced.outside.groups,
        params: c.coalesced.outside.params - a.coalesced.outside.params,
      };
    };
    // Full fine-tune: q (4,096) and o alone, k and v (2,048 each) together, the MLP's 8,192-element weights alone.
    const f = full(3, 'deepspeed');
    expect(perLayer(f)).toEqual({ groups: 6, coalesced: 1, params: 2 });
    // LoRA r 16 on every linear: the adapters over 640 elements (all but k's and v's lora_B, 512) ride along until a
    // group reaches the bucket: [dA dB q] (the last layer's down adapters carried), [qA qB k], [kA v vA], [o],
    // [oA oB gate], [gA gB up], [uA uB down]: seven groups, six coalesced, of 18 parameters.
    const lora: EstimateOptions = {
      ...f,
      method: 'lora',
      loraRank: 16,
      loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
    };
    expect(perLayer(lora)).toEqual({ groups: 7, coalesced: 6, params: 18 });
    // Every parameter a collective of its own: nothing coalesced, no per-rank work.
    const lone = gatherCollectives(
      toy,
      lora,
      8,
      { prefetch: 1, persistence: 640 },
      { loop: false, hit: 0 },
    );
    expect(lone.coalesced.outside).toEqual({ groups: 0, params: 0 });
    // On 16 ranks over 8, each coalesced parameter records 8 more slices and slices 8 more times, each group's
    // buffer 8 more: the hooks' forward seconds grow by that alone (Qwen3-30B-A3B's loop, DeepSpeed's buckets).
    const w8 = work(f);
    const w16 = work({ ...f, gpus: 16 });
    const g = gatherCollectives(m, f, 48, DEFAULT_BUCKETS, { loop: true, hit: w8.expertsHit });
    expect(w16.zeroHookLoopSeconds - w8.zeroHookLoopSeconds).toBeCloseTo(
      coal(g.coalesced.loop, 16) - coal(g.coalesced.loop, 8),
      9,
    );
    expect(w16.zeroHookLoopSeconds - w8.zeroHookLoopSeconds).toBeCloseTo(
      8 * g.coalesced.loop.params * (pr.sliceSeconds + pr.recordStreamSeconds) +
        8 * g.coalesced.loop.groups * pr.sliceSeconds,
      9,
    );
    expect(pr).toMatchObject({ bufferSlices: 1, paramSlices: 1 });
    // A slice's price is the measured one (scripts/measure/zero3-slices.py), to the hundredth of a microsecond.
    const slices = readMeasured('zero3-slices-cpu.json') as {
      versions: { torch: string };
      per_slice_us: number;
    };
    expect(slices.versions.torch).toMatch(/^2\.3\.1/);
    expect(pr.sliceSeconds).toBeCloseTo(Math.round(slices.per_slice_us * 100) / 100 / 1e6, 12);
  });

  it('ZeRO-3 reduce-scatters a bucket at a time: an ‘auto’ bucket is the hidden size squared', () => {
    expect(h.reduceBucket).toEqual({ elements: 5e8, autoPerHidden2: 1 });
    const o = full(3, 'deepspeed');
    const dflt = work(o);
    const auto = work(o, { ...t, zeroAutoBuckets: true });
    const buckets = (b: number) => Math.ceil(m.total / b);
    const autoBuckets = { prefetch: 0.9 * m.hidden * m.hidden, persistence: 10 * m.hidden };
    const calls = (b: { prefetch: number; persistence: number }) =>
      gatherCollectives(m, o, 48, b, { loop: true, hit: dflt.expertsHit });
    const again = (b: { prefetch: number; persistence: number }) =>
      calls(b).outside * looped.outside + calls(b).loop * looped.loop;
    // Qwen3-30B-A3B: 30.5B gradients in buckets of 2048^2 = 4.2M elements, not 5e8; the backward's gathers of the
    // released weights follow the prefetch grouping.
    expect(auto.zeroHookBwdOps - dflt.zeroHookBwdOps).toBeCloseTo(
      h.collectiveOps *
        (buckets(m.hidden * m.hidden) - buckets(5e8) + again(autoBuckets) - again(DEFAULT_BUCKETS)),
      6,
    );
    // The hooks' measured seconds are the same; the coalesced gathers' per-rank work follows the grouping.
    const groups = (b: { prefetch: number; persistence: number }) => calls(b).coalesced.outside;
    expect(auto.zeroHookFwdSeconds - dflt.zeroHookFwdSeconds).toBeCloseTo(
      coal(groups(autoBuckets), 8) - coal(groups(DEFAULT_BUCKETS), 8),
      9,
    );
    expect(auto.zeroHookLoopBwdOps).toBeGreaterThan(dflt.zeroHookLoopBwdOps);
    // One rank reduces nothing.
    const one = { ...o, gpus: 1 };
    expect(work(one, { ...t, zeroAutoBuckets: true }).zeroHookBwdOps).toBe(
      work(one).zeroHookBwdOps,
    );
  });

  it('ZeRO-2 carries no measured seconds', () => {
    const z2 = work(full(2, 'deepspeed'));
    expect(z2.zeroHookFwdSeconds + z2.zeroHookBwdSeconds + z2.zeroHookLoopSeconds).toBe(0);
  });

  it('ZeRO-3 over a per-expert loop: the measured price per expert linear module and parameter-less one', () => {
    const w = work(full(3, 'deepspeed'));
    const w1 = hooks1(full(3, 'deepspeed'));
    // Qwen3-30B-A3B: 48 layers, 128 experts x 3 linears, all hit at 8,192 tokens x top 8; each expert also is
    // its MLP module and its activation module (hooked, no parameters).
    const hit = w.expertsHit;
    expect(hit).toBeGreaterThan(127.9);
    expect(w1.zeroHookLoopOps).toBeCloseTo(ops(48 * hit * 3, 48 * hit * 2), 0);
    // DeepSpeed's 5e7 prefetch bucket gathers 32 expert linears at a time: each one's slices and stream records.
    const g = gatherCollectives(m, full(3, 'deepspeed'), 48, DEFAULT_BUCKETS, { loop: true, hit });
    expect(g.coalesced.loop.params).toBe(48 * Math.round(hit) * 3);
    expect(w.zeroHookLoopSeconds).toBeCloseTo(
      sec(48 * hit * 3, 48 * hit * 2) + coal(g.coalesced.loop, 8),
      9,
    );
    expect(w1.zeroHookLoopSeconds).toBeCloseTo(sec(48 * hit * 3, 48 * hit * 2), 9);
    // q, k, v, o and the router are the dense modules (5); the layer, its attention, its sparse MoE block and its
    // 2 norms are hooked and gather nothing (5); gradients: the dense modules, 2 norms and every expert linear.
    expect(w1.zeroHookFwdOps).toBe(ops(48 * 5, 48 * 5));
    expect(w.zeroHookFwdSeconds).toBeCloseTo(sec(48 * 5, 48 * 5) + coal(g.coalesced.outside, 8), 9);
    const grads = 48 * (5 + 2 + hit * 3);
    // Backward gathers again what the reuse window released after the recompute: q, k, v, o and the router (the
    // experts' 604M elements a layer lie after them) and the loop's first 22 experts.
    expect(looped.outside).toBe(1);
    const bwdGatherOps = h.collectiveOps * (g.outside * looped.outside + g.loop * looped.loop);
    const bwdGatherSeconds =
      coal(g.coalesced.outside, 8) * looped.outside + coal(g.coalesced.loop, 8) * looped.loop;
    expect(w.zeroHookBwdOps).toBeCloseTo(
      ops(48 * (5 + hit * 3), 48 * 5 + 48 * hit * 2) + gradOps8 * grads + reduceOps + bwdGatherOps,
      6,
    );
    expect(w.zeroHookBwdSeconds).toBeCloseTo(
      sec(48 * (5 + hit * 3), 48 * 5 + 48 * hit * 2) + h.gradient * grads + bwdGatherSeconds,
      9,
    );
    // The experts' share, which ZeRO-3's event windows keep in step with the GPU.
    // The reduce-scatters ride with the gradients that fill their buckets, the experts' most of them.
    expect(w.zeroHookLoopBwdOps).toBeCloseTo(
      ops(48 * hit * 3, 48 * hit * 2) +
        gradOps8 * 48 * hit * 3 +
        (reduceOps * (48 * hit * 3)) / (48 * (5 + 2) + 48 * hit * 3) +
        h.collectiveOps * g.loop * looped.loop,
      6,
    );
    expect(w.zeroHookLoopBwdSeconds).toBeCloseTo(
      sec(48 * hit * 3, 48 * hit * 2) +
        h.gradient * 48 * hit * 3 +
        coal(g.coalesced.loop, 8) * looped.loop,
      9,
    );
    expect(work(full(2, 'deepspeed')).zeroHookLoopBwdOps).toBe(0);
  });

  it('ZeRO-3 under PEFT LoRA: each adapted linear is 3 modules with a parameter and 2 without', () => {
    const lora = (targets: EstimateOptions['loraTargets']): EstimateOptions => ({
      ...full(3, 'deepspeed'),
      method: 'lora',
      loraRank: 64,
      loraTargets: targets,
    });
    const qv = hooks1(lora(['q', 'v']));
    const q = hooks1(lora(['q']));
    // One more adapted linear a layer: lora_A and lora_B (gathering) and PEFT's wrapper and dropout (not).
    expect(qv.zeroHookFwdOps - q.zeroHookFwdOps).toBe(ops(48 * 2, 48 * 2));
    expect(qv.zeroHookFwdSeconds - q.zeroHookFwdSeconds).toBeCloseTo(sec(48 * 2, 48 * 2), 9);
    // Adapted experts in the loop: the same two parameter-less modules per expert linear.
    const experts = hooks1(lora(['q', 'gate', 'up', 'down']));
    const hit = experts.expertsHit;
    expect(experts.zeroHookLoopOps - q.zeroHookLoopOps).toBeCloseTo(
      ops(48 * hit * 3 * 2, 48 * hit * 3 * 2),
      6,
    );
  });

  it('ZeRO-3 reduce ops grow with the data-parallel ranks', () => {
    const w8 = work(full(3, 'deepspeed'));
    const w16 = work({ ...full(3, 'deepspeed'), gpus: 16 });
    const grads = 48 * (5 + 2 + w8.expertsHit * 3);
    expect(w16.zeroHookBwdOps - w8.zeroHookBwdOps).toBeCloseTo(8 * grads, 6);
  });

  it('ZeRO-2 pays only the gradient hooks; ZeRO-1 and FSDP none', () => {
    const z2 = work(full(2, 'deepspeed'));
    expect(z2.zeroHookFwdOps).toBe(0);
    expect(z2.zeroHookLoopOps).toBe(0);
    expect(z2.zeroHookBwdOps).toBeGreaterThan(0);
    expect(work(full(1, 'deepspeed')).zeroHookBwdOps).toBe(0);
    expect(work(full(3, 'hf')).zeroHookBwdOps).toBe(0);
  });

  it('grouped experts (transformers 5) are one module of two 3-D parameters per layer', () => {
    const grouped = hooks1(full(3, 'deepspeed'), { ...defaultTimeOptions(2), zeroMoeHooked: true });
    const looped = hooks1(full(3, 'deepspeed'));
    expect(grouped.zeroHookLoopOps).toBe(0);
    expect(grouped.zeroHookFwdOps).toBe(looped.zeroHookFwdOps + ops(48, 0));
    expect(grouped.zeroHookFwdSeconds).toBeCloseTo(looped.zeroHookFwdSeconds + sec(48, 0), 9);
  });

  it('the hooks never make a step faster, and a looped ZeRO-3 step pays them in series', () => {
    const o = full(3, 'deepspeed');
    const noHooks = { ...FRAMEWORKS.deepspeed };
    const hooks = noHooks.zeroHooks;
    const withHooks = seconds(o);
    try {
      delete (FRAMEWORKS.deepspeed as { zeroHooks?: unknown }).zeroHooks;
      const without = seconds(o);
      // The loop syncs per expert: at least the forward's and the recompute's hooks add up.
      const loop = work(o);
      expect(withHooks - without).toBeGreaterThanOrEqual(
        2 * 2 * (loop.zeroHookLoopOps * 10e-6 + loop.zeroHookLoopSeconds) * 0.999,
      );
    } finally {
      (FRAMEWORKS.deepspeed as { zeroHooks?: unknown }).zeroHooks = hooks;
    }
  });

  it('overlap_comm false puts the gradient reduces in series with backward, the gathers still overlap', () => {
    const o = full(3, 'deepspeed');
    // One node of 8 (NVLink): compute hides the collectives when they overlap.
    const time: TimeOptions = { ...defaultTimeOptions(2), gpusPerNode: 8 };
    const overlapped = seconds(o, time);
    const serial = seconds(o, { ...time, serialComm: true });
    const w = work(o, time);
    const r = gpuRates(gpu, time);
    expect(serial).toBeGreaterThan(overlapped);
    // Each micro-batch at most its reduced bytes over the data-parallel link and each reduce-scatter's fixed
    // latency (the gathers unchanged).
    expect(serial - overlapped).toBeLessThanOrEqual(
      w.microBatches *
        (w.gradReduceBytes / r.intraMany + w.zeroReduces * ALLREDUCE_LATENCY_NVLINK) +
        1e-9,
    );
  });

  it("overlap_comm false pays each ZeRO-3 reduce-scatter's fixed latency in series, once per bucket", () => {
    const o = full(3, 'deepspeed');
    // 'auto' buckets: the hidden size squared, one reduce-scatter a bucket of the model's gradients.
    const time: TimeOptions = { ...defaultTimeOptions(2), gpusPerNode: 8, zeroAutoBuckets: true };
    const r = gpuRates(gpu, time);
    const serialWork = work(o, { ...time, serialComm: true });
    expect(serialWork.zeroReduces).toBe(Math.ceil(m.total / (m.hidden * m.hidden)));
    const noLatency = { ...serialWork, zeroReduces: 0 };
    // Each micro-batch with one latency per reduce-scatter on the compute stream.
    expect(trainStep(serialWork, r) - trainStep(noLatency, r)).toBeCloseTo(
      serialWork.microBatches * serialWork.zeroReduces * ALLREDUCE_LATENCY_NVLINK,
      9,
    );
    // Overlapped on their own stream (overlap_comm true), the calls' latency hides behind backward.
    const overlapWork = work(o, time);
    expect(trainStep(overlapWork, r)).toBe(trainStep({ ...overlapWork, zeroReduces: 0 }, r));
    // One rank reduces nothing.
    expect(work({ ...o, gpus: 1 }, { ...time, serialComm: true }).zeroReduces).toBe(0);
  });

  describe('a sparse MoE block DeepSpeed marks a ZeRO-3 leaf module (v0.18.0 on)', () => {
    it('grouped experts: the block gathers the router and the experts as one module and hooks nothing inside', () => {
      const leaf = work(full(3, 'deepspeed'), defaultTimeOptions(2));
      const hooked = work(full(3, 'deepspeed'), { ...defaultTimeOptions(2), zeroMoeHooked: true });
      const leaf1 = hooks1(full(3, 'deepspeed'), defaultTimeOptions(2));
      const hooked1 = hooks1(full(3, 'deepspeed'), {
        ...defaultTimeOptions(2),
        zeroMoeHooked: true,
      });
      // A layer: q, k, v, o and the block gather (5 modules, was q, k, v, o, router and experts: 6); the layer, its
      // attention and its 2 norms gather nothing (4, was 5 with the block). The gradients are the same.
      expect(leaf1.zeroHookFwdOps).toBe(ops(48 * 5, 48 * 4));
      expect(hooked1.zeroHookFwdOps - leaf1.zeroHookFwdOps).toBe(ops(48, 48));
      expect(hooked.zeroHookBwdOps - leaf.zeroHookBwdOps).toBe(ops(48, 48));
      expect(hooked.zeroHookBwdSeconds - leaf.zeroHookBwdSeconds).toBeCloseTo(sec(48, 48), 9);
    });

    it('a per-expert loop: no expert hooked, and every expert’s gradients reduced from the block', () => {
      const leaf = work(full(3, 'deepspeed'), { ...defaultTimeOptions(2), moeLoop: true });
      expect(leaf.zeroHookLoopOps).toBe(0);
      expect(leaf.zeroHookLoopBwdOps).toBe(0);
      expect(leaf.zeroHookLoopSeconds).toBe(0);
      expect(
        hooks1(full(3, 'deepspeed'), { ...defaultTimeOptions(2), moeLoop: true }).zeroHookFwdOps,
      ).toBe(ops(48 * 5, 48 * 4));
      // q, k, v, o, the router, 2 norms and all 128 experts' 3 linears. The backward gathers again what the reuse
      // window released: the experts as one module a projection (201M elements each) keep their gate, up and down;
      // q, k, v, o and the router lie beyond.
      const grouped = backwardRegatherShares(m, full(3, 'deepspeed'), REUSE, false);
      expect(grouped.outside).toBeCloseTo(5 / 8, 6);
      const gl = gatherCollectives(m, full(3, 'deepspeed'), 48, DEFAULT_BUCKETS, {
        loop: false,
        hit: 128,
      });
      expect(leaf.zeroHookBwdOps).toBeCloseTo(
        ops(48 * 5, 48 * 4) +
          gradOps8 * 48 * (7 + 128 * 3) +
          reduceOps +
          h.collectiveOps * gl.outside * grouped.outside,
        6,
      );
      expect(leaf.zeroHookBwdSeconds).toBeCloseTo(
        sec(48 * 5, 48 * 4) +
          h.gradient * 48 * (7 + 128 * 3) +
          coal(gl.coalesced.outside, 8) * grouped.outside,
        9,
      );
    });

    it('a shared expert and its gate sit inside the block; model types not listed keep their hooks', () => {
      const qwen2Moe = modelFacts(
        archFromHfConfig(QWEN15_MOE_CONFIG, {
          id: 'qwen1.5-moe-a2.7b',
          hfId: 'Qwen/Qwen1.5-MoE-A2.7B',
        }),
      );
      const o = full(3, 'deepspeed');
      const leaf = hooks1(o, defaultTimeOptions(2), qwen2Moe);
      const hooked = hooks1(o, { ...defaultTimeOptions(2), zeroMoeHooked: true }, qwen2Moe);
      // Hooked: q, k, v, o, the router, the shared expert's 3 linears, its gate and the experts (10 modules), and
      // the layer, attention, block, 2 norms, the shared expert's MLP module and its activation (7, gathering
      // nothing). Leaf: q, k, v, o and the block (5); the layer, attention and 2 norms (4).
      expect(hooked.zeroHookFwdOps).toBe(ops(24 * 10, 24 * 7));
      expect(leaf.zeroHookFwdOps).toBe(ops(24 * 5, 24 * 4));
      const olmoe = modelFacts(resolveModel('olmoe-1b-7b-0924'));
      const olmoeLeaf = trainWork(olmoe, o, defaultTimeOptions(2));
      const olmoeHooked = trainWork(olmoe, o, { ...defaultTimeOptions(2), zeroMoeHooked: true });
      expect(olmoeLeaf.zeroHookFwdOps).toBe(olmoeHooked.zeroHookFwdOps);
    });
  });
});
