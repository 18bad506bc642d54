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
 * The check's time band per kind of figure: the time model's out-of-sample p90 absolute error of that kind on the
 * shipped speed set (`vramplan validate --throughput`, summary groups kind:training, kind:decode, kind:serving and
 * kind:rl; nearest-rank p90), rounded up to 0.01. test/check/time-band.test.ts fails when a band is below its p90 or
 * 0.02 or more above it, so a change that moves a p90 moves its band. How each band got here: CHANGELOG.md.
 * Where each p90 stands on the shipped set (error = estimate / run - 1 in speed; + is a plan faster than its run):
 * - training: 328 rows, p90 0.402 (pytorch/torchtitan#1993's DeepSeek-16B arm on 8 B200 without activation checkpointing,
 *   compiled, +40.2%; just below it QwenLM/Qwen3#736's Qwen2 7B LoRA over ZeRO-3 on 8 H100, +39.8%), with chenyaofo's
 *   DeepSpeed LLaMA-7B gist rows on 8 A800 (+42.0..+69.5%) and ZeRO-3's backward re-gathering only what
 *   stage3_max_reuse_distance releases. 0.40 at 314 rows, p90 0.393 (MakazhanAlpamys/Soup#378's Llama-3.1-8B LoRA with FlashAttention 2 and Liger on one
 *   H100, +39.3%; just below it optimum-benchmark's FP4 QLoRA of Llama-2-7B on an RTX 4090, -39.0%). 0.38 at 305 rows,
 *   p90 0.378 (whyNLP/tinyllama's TinyLlama over DeepSpeed on 4 RTX A6000, +37.8%), before the fine-tuning rows of
 *   BenjaminBossan/peft-experiments, hiyouga/LlamaFactory#6958 and a V100S LLaMA-Factory run (+29.7..+97.7% on GeForce
 *   cards; docs/time-model.md "torchtune against PEFT on RTX 4090s and two LLaMA-Factory LoRA runs"). 0.34
 *   before the torchtitan MoE rows on 8 B200 (pytorch/torchtitan#1993's six arms +33.8..+53.3%,
 *   pytorch/torchtitan#4605's Qwen3-30B-A3B +98.1%; docs/time-model.md "torchtitan's MoE runs on 8 H100 and 8 B200"):
 *   297 rows, p90 0.339
 *   (huggingface/trl#6846's 1M-token SFT of Qwen3-0.6B over context parallelism 8 on
 *   8 H100, -33.9%; its Qwen3-8B and 30B-A3B runs -33.1%, -32.4% just below). 0.32 before those rows and torchtitan's
 *   December 2024 CP rows (+50.0%, +58.0% at CP 4 and 8) were added: 257 rows, p90 0.313 (prime-rl's FSDP2 SFT of Qwen3-0.6B at 8,192 tokens on one RTX A6000, +31.3%; just
 *   below it PEFT's LoRA of Llama-3.2-3B on an L40S, -30.9%, just above it LLaMA-Factory's QLoRA at 16,384 tokens on an
 *   A100 40GB, -31.4%, and torchtitan's MXFP8 Llama 3 8B on four GB200, +34.0%). The largest above it are ZeRO-3, FSDP
 *   and DeepSpeed ZeRO-2 or DDP
 *   fine-tunes over several GPUs (ms-swift's Qwen3-30B-A3B on 16 A800 +122%, QwenLM/Qwen3#736's Qwen2 72B and 7B LoRA on
 *   8 H100 +118%, +39%, axolotl's Llama 4 Scout QLoRA on 4 H100 +117%, whyNLP/tinyllama's LLaMA-7B over ZeRO-2 on 8 A100
 *   +116% and TinyLlama over DDP on 8 RTX 3090 +78%, over ZeRO-2 on 8 RTX 3090 +53%, on 4 RTX A6000 +38%, LLaMA-7B over
 *   DDP on 8 A100 +35% and TinyLlama over DDP on 8 RTX A6000 +34%, prime-rl's FSDP2 SFT of Qwen3-4B on 8 B200 under
 *   flash-attn 2 +109% and of Qwen3-30B-A3B on 8 H200 +56%, deepspeedai/DeepSpeed#3901's offloaded Falcon-7B on 8 A100
 *   40GB +70%, xtuner's ZeRO-3 Llama 2 70B on 32 A100 and Mixtral-8x7B on 16 across nodes over an unstated network +61%,
 *   +56%), prime-rl's Qwen3-0.6B at 8,192 tokens on one H100 (+46%), Scicom's packed Qwen3-1.7B full fine-tune on one
 *   H100 (+48%) and Qwen3-0.6B over DDP on 4 H100 (-40%: per-document attention timed over whole rows),
 *   optimum-benchmark's fp4 QLoRA of Llama-2-7B at 256 tokens on an RTX 4090 (-45%, -37%), ms-swift's packed 16K
 *   Qwen2.5-7B over ZeRO-3 on four H20 (-42%: the capped card's GEMMs held at a flagship's efficiency), QwenLM/Qwen's
 *   GPTQ Q-LoRA at 256 tokens (+40%) and BERT-large AMP on a V100 (+37%).
 * - decode: 186 rows, p90 0.211 (llama-server's gpt-oss-20b on an A100 40GB PCIe, +21.1%; 0.192 at 177 rows before
 *   ggml-org/llama.cpp#8215's IQ3_XXS microbatch rows, +53.0% and +54.7% at 4 and 8 tokens on an RTX 3090, and
 *   Unsloth's DeepSeek-R1 UD-IQ1_S figure on 2x H100, +440%; 0.192 at 164 rows: LitGPT's small-model decode, +19.2%; 0.205 with 153 rows, gpt-oss-20b at 4 tokens a
 *   pass on an RTX 3090, ggml-org/llama.cpp#20586, +20.5%, before AlexsJones/llmfit's eleven RTX 5070 llama-server rows;
 *   0.213 before Metal's small-batch mat-vec re-reads were priced, time/mmvq-columns.ts METAL_EXTRA_READS, and 0.192 before
 *   ggml-org/llama.cpp#16894's ten llama-batched-bench rows on Metal). Above it: ggml-org/llama.cpp#19365's
 *   Qwen3-Next Q4_K_M tg128 on an A100 (+212%: its Gated DeltaNet layers as generic ggml ops), ggml-org/llama.cpp#16894's
 *   gpt-oss-20b MXFP4 on Metal at 1-4 sequences (+20.9..+39.6%), llama.cpp's gpt-oss-20b tg128 rows of
 *   ggml-org/llama.cpp#16834 and ggml-org/llama.cpp#16649 on an RTX 4090 (+36.9%, +32.0%), gpt-fast's Llama 3.1 405B
 *   int8 over TP 8 (+28.3%), ggml-org/llama.cpp#17621's unfused Qwen3-30B-A3B tg128 on an RTX 5090 and 4090 (-27.1%,
 *   -21.1%: ggml's own MoE routing kernels, engines/llama-cpp/moe-kernels.ts), Qwen2.5 1.5B Q4_K_M at a 10,000-token
 *   context on an RTX 4090 (+23.9%), gpt-oss-20b at 8 tokens a pass on an RTX 3090 (ggml-org/llama.cpp#20586, +22.0%),
 *   LitGPT's Llama 2 70B decode (-21.5%), Llama 2 7B Q4_0 tg128 with -fa 1 on one MI300X under a HIP build without
 *   graphs (AUGMXNT/MI300-testing, +21.3%) and llama-server's gpt-oss-20b on an A100 40GB PCIe (+21.1%) and
 *   gpt-oss-20b at 4 tokens a pass on an RTX 3090 (+20.5%). llama.cpp's Apple Silicon table (discussion ggml-org/llama.cpp#4167) reads
 *   -8.8..+5.4% with Metal's dispatch a kernel
 *   (engines/llama-cpp/memory.ts metalDecode).
 * - serving: 525 rows, p90 0.537 (vllm-project/vllm#17788's ShareGPT burst of 1000 on an H100 NVL, +53.6%, and
 *   sgl-project/sglang#30812's GLM-5.1 FP8 over TP 8 on MI300X at 64 in flight, +53.8%); 0.551 with dstackai/benchmarks'
 *   four Llama 3.1 405B single requests of 16K-128K tokens on 8 MI300X (vLLM 0.6.3.dev V0, +110..+162%) before V0's
 *   eager steps past max_seq_len_to_capture (FrameworkProfile.v0GraphMaxSeqLen: +35..+81%). 521 rows, p90 0.538 (sgl-project/sglang#30812's GLM-5.1 FP8 over TP 8
 *   on MI300X at 64 in flight, +53.8%), up from 0.479 at 487 rows with the fifth mainstream sample's 34 rows (docs/time-model.md "A fifth mainstream
 *   sample": the Qwen3 speed benchmark's fifteen SGLang rows on an H20, +48..+712%, and LLM-Inference-Bench's MI300X
 *   batches, +16..+185%, above it). 451 rows, p90 0.488 (vllm-project/vllm#22331's gpt-oss-120b on one A100 80GB, +48.8%; 0.494 at 434 rows
 *   before the second mainstream sample and vLLM's awq_gemm up to 255 tokens, FrameworkProfile.awqGemmMaxTokens).
 *   At 403 rows, p90 0.494 (sariekr/gpu_conc's gpt-oss-20b on an H200 at one request, +49.4%; just above it
 *   GPUStack's quantization study, Qwen3-8B dynamic FP8 in a ShareGPT burst of 1000 on an H100 under vLLM 0.9.2, +50.8%).
 *   0.508 before SGLang's DSA decode kernels on gfx942 were counted (engines/sglang/decode-kernels.ts), which took
 *   sgl-project/sglang#30812's GLM-5.1 FP8 over TP 8 on MI300X at 16 in flight from +53.6% to +34.9%. 0.537 before the 35 rows of
 *   GPUStack's quantization study and A100 pages, vllm-project/vllm#18725 and vllm-project/vllm#23696 and Marlin's
 *   large-M GEMMs on an A100 at KernelFamily.sm80PeakShare (vllm-project/vllm#2497), which moved the A100 pages' four
 *   Marlin bursts from +60..+71% to -0.1..+11.8%; 0.536 at 368 rows (sgl-project/sglang#30812's GLM-5.1 FP8 over TP 8
 *   on MI300X at 16 in flight, +53.6%, and vllm-project/vllm#17788's ShareGPT burst of 1000 on an H100 NVL, +53.6%).
 *   0.537 with the bursts timed as a static batch in waves of the pool's count,
 *   before they were run step by step under the engine's token budget (validate-throughput.ts steppedBurstSeconds);
 *   0.536 before the SGLang cookbook's LFM2.5-1.2B rows on H100, H200 and B200, +20.8..+83.2% and -45.6%, and
 *   sgl-project/sglang#32994's W8A8 FP8 one_batch rows, +28.5%, +28.9%; 0.518 before sgl-project/sglang#30812's four
 *   rows, and 0.535 before the MiniMax rows took their checkpoint's block-scaled FP8 config. Before that, 0.535 rose
 *   from 0.526 with sgl-project/sglang#6885's default-tile DeepSeek-V3-0324 run on 8 H20, +71.2%, and vLLM's MI300X Qwen3 FP8
 *   MoE bursts of May 2025 (vllm-project/vllm#17530, vllm-project/vllm#17535: +35..+168%) and the vllm-project/recipes pages' DeepSeek-R1
 *   on 8 MI300X (+34%) and Qwen3-Next on 4 B200 (+45%) raised it from 0.502; vLLM V1's unsplit FlashAttention 2 walk
 *   (gemma-3-4b-it at one request on an A100, tenstorrent/tt-inference-server#521: +54.2% -> +42.1%) lowered it again.
 *   The largest above it are lukaLLM's FP8 MoE ShareGPT
 *   bursts of 1000 on one L40S (+339%, +266%), sariekr/gpu_conc's gpt-oss-20b on B200, MI300X and H200 (+52..+161%), the
 *   SGLang cookbook's DeepSeek-V3 EP 8 DP-attention run on 8 MI300X (+142%), databasemart.com's RTX 4090 bursts of 300
 *   of 1.5B and 3B models (+89%, +57%), ovg-project/kvcached's burst of 500 Qwen3-0.6B requests on an H100 (+118%),
 *   xinyuwei-david/david-share's gpt-oss-20b closed loop of 256 on an H100 NVL (+119%), the 2K-32K and 128-token bursts
 *   on one H100 (SGLang's Qwen3-14B FP8 +76..+111%, gpt-oss-20b +64%, vLLM's Qwen3-14B bf16 +55..+63%, DeepSeek-R1 on
 *   8 H200 +58%), GLM-4.6 on 8 B200 under SGLang at one request (+65%), llm-d's Llama 3.3 70B FP8 on 8 MI355X (+55%),
 *   the MoE rows run on the engines' default fused_moe tiles or on ROCm (SGLang's MiniMax-M2.7 FP8 on MI300X at 256 in
 *   flight +88%, DeepSeek-V3-0324 FP8 on 8 H20 +58%) and a bf16 Mistral 24B on one B200 at 64 in flight of 300-token
 *   prompts (-48%).
 * - rl: 62 rows, p90 0.323 (rlvr's GRPO of Qwen2.5-0.5B-Instruct, full, with transformers generate on an A100, +32.3%).
 *   Above it: Hands-On LLMs' TinyLlama QLoRA DPO on a T4 (-34.5%), Unsloth's FP8 GRPO of Llama-3.2-1B on an L4 (+37.9%),
 *   the HF cookbook's GRPO notebook, Qwen2-0.5B LoRA with transformers generate at 32 completions a micro-batch on a
 *   Colab A100 (+39.1%), the amirhoseinnaderali-pixel DPO strategy sweep's FSDP step, TinyLlama LoRA on two Kaggle T4s
 *   (+48.9%), jsboige/CoursIA's GRPO probe of QLoRA Qwen3-14B on an RTX 4090 at 16 generations (+80.3%) and the DPO
 *   sweep's ZeRO-3 step with parameters offloaded (+103.5%). 0.36 at 56 rows (p90 0.345) before RicoStaedeli/NLP2025_CQG's
 *   six DPO rows (docs/time-model.md "DPO and ORPO steps from RicoStaedeli/NLP2025_CQG and two Unsloth notebooks").
 * Time to first token has no calibration rows: it takes the serving band.
 */
export const TIME_UNCERTAINTY = { training: 0.41, decode: 0.22, serving: 0.54, rl: 0.34 } as const;

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
