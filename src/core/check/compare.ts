/**
 * A finished run against its plan: per component (torch allocated, reserved, device; step time, tokens/s; time to
 * first token, time per output token) the measured / planned ratio, whether the measurement lies inside the
 * plan's uncertainty band, and the likeliest reasons when it does not. Pure.
 */
import { UNCERTAINTY } from '../memory/uncertainty.js';
import { ENGINE_PROFILES, FRAMEWORKS } from '../engines/store.js';
import { isEngine } from '../../schema/engine.js';
import type { RunPlan } from '../../schema/measured.js';

/**
 * The time model's p90 absolute error per kind of figure on the shipped speed set (`vramplan validate
 * --throughput`, out-of-sample summary groups kind:training 0.343, kind:decode 0.233, kind:serving 0.439, kind:rl
 * 0.214: GRPO steps; 0.283 before the rollout's lone last steps, 0.326 before old bitsandbytes builds' tree
 * dequantization, 0.454 before the rollout's LoRA kernels and inline-ECC GDDR bandwidth), rounded up; test/check/time-band.test.ts keeps them in step. The MoE full
 * fine-tunes of ms-swift's DeepSpeed benchmarks widened training from 0.343 (0.419 before the per-expert loop's
 * synced ops, the ZeRO-3 hook counts and the autocast casts), and came back to it with the dense MoE block's
 * per-expert loop (0.370 before). Unsloth's Qwen3-30B-A3B LoRA notebook on an A100 (+1,599%: torch._grouped_mm's
 * per-group fallback off sm90/sm100, not timed) widened training again to 0.370, and three GRPO notebook rows widened
 * rl to 0.281 (DeepSeek-R1-0528-Qwen3-8B on a T4, +28.1%), and that row read as its log has it (every completion
 * stopped at vLLM's 256-token max_model_len: 4 completions of 157 tokens decoded together, 100-token prompts) widened
 * rl to 0.601 (+60.0%), and came back to 0.177 once its captured decode steps ran bitsandbytes' 4-bit path in fp32 as
 * its build did (time/decode.ts copyBytes: -5.6%) and a generation batch's longest completion followed its size
 * (time/completion-length.ts longestToMean: the RTX 4090 row -21.1% -> -17.7%); transformers' eager RMSNorm, rotary and SDPA copies
 * counted as read took training to 0.343 (0.299 without the Qwen3-30B-A3B notebook row, +319%), and to 0.299 with it
 * once each group of the fallback was priced from an A100 benchmark of it (time/grouped-mm-cost.ts: +25.9%). The
 * serving field rows (MI300X FP8 static batches up to 256, MoE serving, llama.cpp MoE on HBM cards) widened decode
 * and serving from 0.215 and 0.124 (decode came back from 0.290 with llama.cpp's unfused graph kernels). SGLang 0.5.x rows of 2025 (the SGLang
 * cookbook: Llama-3.1-70B on 8x A100 and Qwen3-235B-A22B on 8x B200, timed 24-93% too fast) widened serving from
 * 0.228 to 0.460. Six vLLM 0.19.0 closed-loop rows on A100 80GB PCIe (Qwen2.5-7B fp16, TP 1 and 2: -10..+12% with the
 * harness's prefix cache and rounds read from its code) brought serving's p90 to 0.415, the band to 0.42. Five
 * SGLang rows of two sources new to the set (GPUStack's Qwen3-8B on an H100, AccelMark's SGLang 0.5.6 runs on
 * A100-SXM4-40GB: +3..+29%) brought it to 0.370, the band to 0.38. Three LoRA-over-ZeRO-3 rows of one harness on 8
 * H100 (QwenLM/Qwen3#736: Qwen2 7B, 72B and 57B-A14B, 82-298% too fast when first scored) widened training from 0.30
 * to 0.38; LLaMA-Factory's two HF rows read as the eager attention their torch 2.1.0 rig ran (+52%, +40% -> +16%, +9%)
 * brought it to 0.35. GPUStack's vLLM 0.11.0 bursts of 500 gpt-oss-20b prompts (+117%, +58%: prefill timed at twice
 * the rate the runs reached), a llama-server sweep of gpt-oss-20b on HBM cards (+42..+71%), the lab's Qwen3-32B
 * burst whose KV pool runs a dozen of 500 at a time (+48.7% with the pool's queue, time/pool-queue.ts) and
 * vllm-project/vllm#43232's 30,000-token prompts on four B200s (+54.6%, prefill again) widened serving to 0.487 and
 * decode to 0.244 (docs/time-model.md "GPUStack and a llama-server sweep"); llama.cpp's quantized mat-vec timed as
 * bound by the SMs' work on datacenter cards (+9..+37% on that sweep) brought decode back to 0.215, the band to 0.22
 * (docs/time-model.md "llama.cpp's mat-vec on datacenter cards"); a prefill's routed experts priced at one expert's
 * width on the GPU (its TP share: Qwen3-235B-A22B's 384 of 1536 over TP 4) brought serving back to 0.474, the band to
 * 0.48 (docs/time-model.md "vLLM's prefill-heavy bursts"); SGLang's prefills launched eagerly (Qwen3-235B-A22B on
 * B200s at 91 in flight +91.5% -> +71.3%) brought serving to 0.461, the band to 0.47 (docs/time-model.md "SGLang at
 * concurrency"); vLLM's and SGLang's CUDA-graph decode kernels priced at 3.15 µs each beyond their bytes
 * (engines/graph-kernel.ts) brought it to 0.456, the band to 0.46 (docs/time-model.md "The GPU's cost per graph
 * kernel"). GRPO steps: the DeepSeek-R1-0528-Qwen3-8B
 * T4 rollout decoding its bitsandbytes weights in fp32 (+60% -> -6%) and a batch's longest completion taken from
 * its size brought RL's p90 to 0.177, the band to 0.19. Four Unsloth GRPO notebooks new to the set (FP8 LoRA on an L4
 * with vLLM, -10% and +43% with the L4's measured matmul rate; gpt-oss-20b with a transformers rollout on a T4 and an
 * A100, +57% and +207% with every expert read a decode step) widened RL's p90 to 0.570, the band to 0.57
 * (docs/time-model.md "FP8 on an L4 and gpt-oss rollouts"). The gpt-oss decode path read in the code those runs
 * installed (the T4's experts' 4-bit down projections dequantized to fp32, +57% -> +24%; the A100's adapters run
 * unmerged, each layer's eager ops and torch.compile'd calls timed and the training passes' per-expert loop read,
 * +212% -> +57%) and a thirteenth row new to the set (the same stack's 2048-game GRPO run, +204% -> +51%) brought RL's
 * p90 to 0.508, the band to 0.51 (docs/time-model.md "gpt-oss rollouts: the decode path read"); the two attention masks
 * transformers' generate builds through torch.vmap every decode step on those rows and their sliding layers' stream
 * syncs (+57% -> +30%, +51% -> +26%) brought it to 0.303, the band to 0.31 (docs/time-model.md "gpt-oss rollouts:
 * generate's masks"). Two sources new to the
 * set, scored before any model change (docs/time-model.md "llama.cpp on an RTX 4090 and gpt-oss on one MI300X"): eight
 * llama.cpp decode rows on an RTX 4090 (-28.0..-3.7%) widened decode to 0.229, the band to 0.23, and four more on an RTX
 * 4090 and an RTX 5090 with the CUDA backend's fusion off (ggml-org/llama.cpp#17621, -31.6..-27.2%) to 0.272, the band to
 * 0.28, and flash attention's one kernel a layer in their unfused graphs (engines/llama-cpp/memory.ts) to 0.248, the
 * band to 0.25; four vLLM gpt-oss-120b
 * rows on one MI300X (+67.7..+118.8%) widened serving to 0.481, the band to 0.49; their experts' FP4 unpacked in the
 * CUs' registers (time/decode.ts KERNELS.marlin.rocmMoeIssue: -17.8..+18.9%) brought serving to 0.412, the band to 0.42.
 * Seventeen training rows
 * of three sources new to the time set (PEFT's MetaMathQA runs on an L40S, -20..-1% with the L40S's measured matmul rate
 * and torch AdamW's foreach step; Unsloth's packed TinyLlama QLoRA on a T4, +45%; QwenLM/Qwen's README sweep of Qwen-7B
 * LoRA and GPTQ Q-LoRA on an A100 from 256 to 8192 tokens, -5..+23% and -7..+40% with auto-gptq's torch
 * dequantization) left training's p90 at 0.342, the band at 0.35 (docs/time-model.md "PEFT's method comparison and a
 * packed T4 QLoRA"). llama.cpp's graph kernels priced in SM cycles (engines/llama-cpp/memory.ts graphKernelCycles:
 * GeForce rows 2-12 points faster, A100 rows 4-12 points slower) brought decode to 0.190, the band to 0.20. Four
 * sources new to the set, scored before any model change (docs/time-model.md "gpt-oss serving of August 2025 and
 * llama.cpp's PR tables"): sixteen vLLM gpt-oss-20b rows of August 2025 on an H100 PCIe, H200, B200 and MI300X
 * (-16.3..+176.8%) and three of the October 2025 edition of AMD's MI300X page (-10.7..+3.2%) widened serving to 0.525,
 * the band to 0.53; three llama.cpp gpt-oss-20b tg128 rows (+19.1..+32.7%) left decode at 0.195, the band at 0.20.
 * fms-acceleration's nineteen A100 rows (foundation-model-stack/fms-acceleration@9122a76 refs/a100_80gb.csv: Mistral-7B,
 * Mixtral-8x7B and Llama-2-70B full, LoRA and QLoRA over one and two GPUs) took training's p90 to 0.370 when first
 * scored, 0.342 with transformers 4.x's looped experts quantized (time/float-experts.ts) and 0.299 with the one-GPU
 * QLoRA rows' fp32 residual stream (time/kbit-stream.ts): the band to 0.30 (docs/time-model.md "fms-acceleration's
 * reference benchmarks"). SGLang's decode step read again in its code (the batch padded to the captured graph size
 * routed through the MoE layers, Qwen3's per-head q/k norms' kernels, a plain layer's strided q copied above one
 * sequence: the SGLang cookbook's Qwen3-235B-A22B rows 2.5-8.5 points nearer their runs; docs/time-model.md "SGLang's
 * decode step read again") and the burst and fp8-KV prefill kernels (docs/time-model.md) brought serving to 0.523, the
 * band to 0.53. Twelve quantized serving rows from three sources new to the set (QwQ-32B AWQ on vLLM on eight rigs,
 * Mistral Small 24B BF16 and NVFP4 on a B200, Llama 3.3 70B NVFP4 over TP 4 on GB200 with an NVL72 rack read as
 * NVLink-switched; calibration/README.md "Quantized serving rows") and vLLM's piecewise-graph attention for a model
 * with attention sinks (gpt-oss off Hopper runs the Triton backend's eager calls and JIT launches, time/piecewise.ts)
 * brought serving to 0.481, the band to 0.49. llama.cpp's GGUF read rate worked out from ggml-org/llama.cpp#6766's CUDA
 * pair (time/decode.ts KERNELS.gguf: GeForce rows 5-14 points faster) brought decode to 0.179, the band to 0.18.
 * Thirteen vLLM rows from three sources new to the set, scored before any model change (Qwen2-7B bursts on one A100,
 * +12.7..+55.5%; Qwen3Guard-8B on one MI300X, +34.5%; Llama-3.3-70B FP8 over TP 8 on MI355X, +46.3..+133.5%;
 * calibration/README.md "vLLM bursts on one A100 and FP8 over TP 8 on MI355X") widened serving to 0.541, the band to
 * 0.55. vLLM's decode linears on ROCm that its skinny kernels do not take timed as hipBLASLt calls (a fixed cost a call,
 * engines/vllm/rocm-gemm.ts: the MI355X rows +22.1..+123.7%, Qwen3Guard-8B +20.3%) and SGLang's FlashInfer prefill
 * waiting for the step before it (engines/sglang/attention-backend.ts) brought serving to 0.509, the band to 0.51. The
 * decode step's attention kernels timed after its GEMMs instead of under their arithmetic (time/decode-attention.ts:
 * the A100 bursts of 200 and 500, +37.4% -> +26.1%, +55.5% -> +34.6%) brought serving to 0.481, the band to 0.49.
 * Time to first token has no calibration rows: it takes the serving band.
 */
export const TIME_UNCERTAINTY = { training: 0.3, decode: 0.18, serving: 0.49, rl: 0.31 } as const;

/**
 * Used memory a GPU showed before the run started above which other processes are named as a reason: most of
 * one CUDA context with its kernels (~1343 MiB on a V100: the notes of calibration/cases.json hfdocs-bert-02), so a GPU
 * past it holds at least one other process's context.
 */
export const OTHER_PROCESS_BYTES = 1024 ** 3;

export type Component =
  | 'allocated'
  | 'reserved'
  | 'device'
  | 'step time'
  | 'tokens/s per GPU'
  | 'time to first token'
  | 'time per output token';

export interface CheckRow {
  component: Component;
  unit: 'bytes' | 'seconds' | 'tokens/s';
  planned: number;
  measured: number;
  /** measured / planned */
  ratio: number;
  /** Where the measurement may lie and still agree with the plan. */
  band: { low: number; high: number };
  inside: boolean;
  /** Likeliest reasons, most likely first (empty when inside). */
  reasons: string[];
}

/** Everything the probe and the logs saw, reduced to one figure per component (null: not measured). */
export interface Observed {
  allocatedBytes: number | null;
  reservedBytes: number | null;
  deviceBytes: number | null;
  stepSeconds: number | null;
  tokensPerSecondPerGpu: number | null;
  ttftSeconds: number | null;
  tpotSeconds: number | null;
  concurrency: number | null;
  /** The largest used memory any of the run's GPUs showed before it started. */
  baselineBytes: number | null;
  gpuName: string | null;
  versions: Record<string, string | null>;
  fallbacks: string[];
  exitCode: number | null;
}

export interface CheckResult {
  rows: CheckRow[];
  inside: boolean;
  /** Notes that hold for the whole run (exit code, GPU, versions), shown even when every row is inside. */
  notes: string[];
}

const memoryBand = (planned: number) => ({
  // uncertainty.ts bandOf, applied to each memory component alike.
  low: planned * (1 - UNCERTAINTY.p90AbsError),
  high: planned / (1 - UNCERTAINTY.maxUnderError),
});

/** Band of a duration whose speed error (planned speed / measured speed - 1) may reach ±e. */
const durationBand = (planned: number, e: number) => ({
  low: planned / (1 + e),
  high: planned / (1 - e),
});
/** Band of a speed: measured within planned / (1 ± e). */
const speedBand = (planned: number, e: number) => ({
  low: planned * (1 - e),
  high: planned * (1 + e),
});

/** Pinned packages whose installed version differs (or that are not installed). */
export function versionDrift(plan: RunPlan, versions: Record<string, string | null>): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[-_.]+/g, '-');
  const installed = new Map(Object.entries(versions).map(([k, v]) => [norm(k), v]));
  const out: string[] = [];
  for (const [name, pin] of Object.entries(plan.pins)) {
    if (!installed.has(norm(name))) continue;
    const got = installed.get(norm(name));
    if (got !== pin) out.push(`${name} ${got ?? 'not installed'} (pinned ${pin})`);
  }
  return out;
}

/** The GPU model token of a name ("H100", "A100", "4090", "L40S"), upper case. */
const gpuToken = (name: string): string | null =>
  /\b([A-Z]{0,3}\d{2,4}[A-Z]?)\b/.exec(name.toUpperCase())?.[1] ?? null;

function reasonsFor(
  row: Omit<CheckRow, 'reasons'>,
  plan: RunPlan,
  seen: Observed,
  planGpuName: string,
): string[] {
  if (row.inside) return [];
  const high = row.measured > row.band.high;
  const memory = row.unit === 'bytes';
  // "Worse than planned": more memory, a longer duration, fewer tokens/s.
  const worse = row.unit === 'tokens/s' ? !high : high;
  const out: string[] = [];
  const measuredToken = seen.gpuName ? gpuToken(seen.gpuName) : null;
  const plannedToken = gpuToken(planGpuName);
  if (measuredToken && plannedToken && measuredToken !== plannedToken)
    out.push(`the run was on ${seen.gpuName}, the plan on ${planGpuName}`);
  const drift = versionDrift(plan, seen.versions);
  if (drift.length > 0) out.push(`library versions differ from the pins: ${drift.join(', ')}`);
  if (row.component === 'device' && high && (seen.baselineBytes ?? 0) > OTHER_PROCESS_BYTES)
    out.push(
      `other processes held ${(seen.baselineBytes! / 1024 ** 3).toFixed(1)} GiB on the GPU before the run started`,
    );
  if (seen.fallbacks.length > 0 && worse)
    out.push(`a kernel fell back to a slower path (log: "${seen.fallbacks[0]}")`);
  if (!worse && plan.estimate.tokensPerStep > 0 && row.component !== 'time to first token') {
    const seq = plan.flags.seq ?? 2048;
    out.push(
      memory
        ? `the data's sequences may be shorter than the planned ${seq} tokens (activations and logits scale with the real length)`
        : `the real sequences or outputs may be shorter than the planned ${seq} tokens`,
    );
  }
  if (
    (row.component === 'time to first token' || row.component === 'time per output token') &&
    seen.concurrency !== null &&
    plan.estimate.concurrency !== null &&
    Math.abs(seen.concurrency - plan.estimate.concurrency) > 0.5
  )
    out.push(
      `the observed concurrency (${seen.concurrency.toFixed(1)} requests at once) differs from the planned ${plan.estimate.concurrency}`,
    );
  if (seen.exitCode !== null && seen.exitCode !== 0)
    out.push(`the run exited with code ${seen.exitCode}: its peaks may be from a partial run`);
  if (out.length === 0)
    out.push(
      worse
        ? 'nothing in the record explains it: the estimate may miss an allocation or a cost of this configuration (send the run with --case)'
        : 'nothing in the record explains it: the estimate may count something this run did not allocate or do (send the run with --case)',
    );
  return out;
}

/** Compare what was measured with the plan, component by component where both have a figure. */
export function checkRun(plan: RunPlan, seen: Observed, planGpuName: string): CheckResult {
  const e = plan.estimate;
  const serving = plan.flags.method === 'inference';
  const timeE = serving
    ? isEngine(plan.engine) && FRAMEWORKS[ENGINE_PROFILES[plan.engine].framework].server
      ? TIME_UNCERTAINTY.serving
      : TIME_UNCERTAINTY.decode
    : plan.flags.objective === 'grpo'
      ? TIME_UNCERTAINTY.rl
      : TIME_UNCERTAINTY.training;
  const pending: Omit<CheckRow, 'reasons' | 'ratio' | 'inside'>[] = [];
  const add = (
    component: Component,
    unit: CheckRow['unit'],
    planned: number | null,
    measured: number | null,
    band: (p: number) => { low: number; high: number },
  ) => {
    if (planned === null || measured === null || !(planned > 0) || !(measured > 0)) return;
    pending.push({ component, unit, planned, measured, band: band(planned) });
  };
  add('allocated', 'bytes', e.allocatedBytes, seen.allocatedBytes, memoryBand);
  add('reserved', 'bytes', e.reservedBytes, seen.reservedBytes, memoryBand);
  add('device', 'bytes', e.deviceBytes, seen.deviceBytes, memoryBand);
  if (!serving) {
    add('step time', 'seconds', e.stepSeconds, seen.stepSeconds, (p) => durationBand(p, timeE));
    add('tokens/s per GPU', 'tokens/s', e.tokensPerSecondPerGpu, seen.tokensPerSecondPerGpu, (p) =>
      speedBand(p, timeE),
    );
  } else {
    add('time to first token', 'seconds', e.ttftSeconds, seen.ttftSeconds, (p) =>
      durationBand(p, timeE),
    );
    add('time per output token', 'seconds', e.tpotSeconds, seen.tpotSeconds, (p) =>
      durationBand(p, timeE),
    );
  }
  const rows = pending.map((r) => {
    const inside = r.measured >= r.band.low && r.measured <= r.band.high;
    const row = { ...r, ratio: r.measured / r.planned, inside };
    return { ...row, reasons: reasonsFor(row, plan, seen, planGpuName) };
  });
  const notes: string[] = [];
  if (seen.exitCode !== null && seen.exitCode !== 0)
    notes.push(`the run exited with code ${seen.exitCode}`);
  const drift = versionDrift(plan, seen.versions);
  if (drift.length > 0) notes.push(`versions differ from the pins: ${drift.join(', ')}`);
  return { rows, inside: rows.every((r) => r.inside), notes };
}
