/**
 * A request's time to first token and time per output token under continuous batching, and a static batch's
 * latency: both from the decode step and the prefill of decode.ts.
 */
import type { Arch } from '../model/arch.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { Gpu } from '../../schema/gpu.js';
import {
  freshPromptTokens,
  meanContextOf,
  outputTokensOf,
  promptTokensOf,
  type EstimateOptions,
} from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { gpuRates, type GpuRates } from './hardware.js';
import { modelFacts, servedArch, type ModelFacts } from './model-facts.js';
import { prefillWaitsForStep } from './decode-host.js';
import { frontendSeconds } from './frontend.js';
import { linearPasses } from './m-blocks.js';
import { chunkedPrefillHostSeconds } from './graph-step.js';
import { mixedStepExtraSeconds } from './mixed-step.js';
import {
  decodeStep,
  decodeTraffic,
  prefillGpuSeconds,
  prefillTime,
  prefillWeightSeconds,
} from './decode.js';

/**
 * Per request under continuous batching: time to first token = its prompt's prefill (compute-bound) plus a decode
 * step; time per output token = a decode step of the batch at its mean context (prompt + half the output), plus
 * the prefills that interrupt it: while one request decodes its output, each of the other B - 1 sequences is
 * replaced, and its successor prefilled, once. Its own prefill is in its TTFT, not its TPOT: the serving
 * benchmarks' TPOT is (E2E latency - TTFT) / (output tokens - 1) (vllm-project/vllm benchmarks/serve.py
 * calculate_metrics; sgl-project/sglang bench_serving.py), so one request in flight decodes without interruption.
 * An engine that schedules a prompt's chunks into the decode steps (vLLM's chunked prefill,
 * https://docs.vllm.ai/en/latest/configuration/optimization.html; FrameworkProfile.prefillInDecodeStep) reads the
 * weights once for both, so a neighbour's prefill adds its work but not its own read of the weights (and, where that
 * step replays piecewise graphs instead of the decode's full one, the piecewise step's extra: time/mixed-step.ts);
 * one that runs prefills as batches of their own (SGLang, enable_mixed_chunk off) adds the whole prefill. `stall`: one neighbour's.
 * `engine`: the whole engine's options where `o` is one DP-attention rank's (its eager prefill's layout); `step`:
 * the decode step of `o` at its mean context, where the caller has timed it already.
 */
export function servingTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  engine: EstimateOptions = o,
  step: number = decodeStep(m, o, t, r, false, meanContextOf(o)).stepSeconds,
): { ttft: number; tpot: number; stall: number } {
  const prompt = promptTokensOf(o);
  const out = outputTokensOf(o);
  // Prefix caching: the cached share of the prompt is not prefilled again (its attention reads not counted).
  const fresh = freshPromptTokens(prompt, o.prefixCacheFraction);
  const tr = decodeTraffic(m, o, t, r, 1, prompt);
  const gpuPrefill = prefillGpuSeconds(m, o, r, tr, fresh, 1);
  // The host's launches of its eager extend forwards, as many as the engine chunks the prompt into.
  const host = chunkedPrefillHostSeconds(m, o, r, fresh, t, engine);
  // A prompt chunked into the decode steps shares their weight read (V0 rows: a prefill step of its own, unless the
  // V0 server ran with chunked prefill on, which batches the decodes and then prefill chunks into one forward).
  const inStep =
    FRAMEWORKS[o.framework].prefillInDecodeStep === true &&
    (t.v0Scheduler !== true || t.v0ChunkedPrefill === true);
  // Through a kernel that tiles its rows (m-blocks.ts), the prompt's rows join the step's: the passes the step's rows
  // and its together take beyond the step's own, not its own FLOPs.
  const read = prefillWeightSeconds(o, r, tr);
  const passes = inStep ? linearPasses(m, o, tr, read) : null;
  const neighbour = passes
    ? gpuPrefill - passes(fresh) + passes(o.batch - 1 + fresh) - passes(o.batch - 1)
    : gpuPrefill - (inStep ? read : 0);
  // An overlapped scheduler launches a neighbour's prefill during the decode step before it (unless the prefill first
  // reads a device value back: prefillWaitsForStep); the decoders wait for its GPU work or the launches beyond.
  const overlap = t.serialScheduler || t.v0Scheduler || prefillWaitsForStep(m, o, r.cc) ? 0 : step;
  // The step that holds the neighbour's chunk may replay piecewise graphs where decode-only steps replay a full one
  // (time/mixed-step.ts): its host's eager attention calls and the GPU's gaps at the splits come with the chunk.
  const mixed = inStep ? mixedStepExtraSeconds(m, o, t, r, meanContextOf(o), fresh) : 0;
  const stall = Math.max(neighbour + mixed, host - overlap);
  return {
    ttft: Math.max(gpuPrefill, host) + step,
    tpot: step + (stall * (o.batch - 1)) / out,
    stall,
  };
}

/**
 * A static batch, as vLLM's benchmark_latency and SGLang's bench_one_batch time it: the batch's prompts are
 * prefilled in one step, which samples each sequence's first token, then the other output tokens take one
 * decode step each at the batch's mean context (benchmarks/benchmark_latency.py: llm.generate of `batch`
 * prompts with ignore_eos, max_tokens = output_len). One prefill on V0 too, long-context models included: V0 chunks
 * by default above a 32K max_model_len only while enable_chunked_prefill is None (vllm/engine/arg_utils.py @v0.6.3),
 * and benchmark_latency.py @v0.6.3 passed it False from a store_true flag; unchunked, the step's budget is
 * max(max_model_len, 2048) tokens (vllm/config.py @v0.6.3 SchedulerConfig). A batch with prefix caching on
 * (`prefixCacheFraction`) prefills only each prompt's uncached share: V1 turns the cache on by default
 * (vllm/engine/arg_utils.py `_set_default_args_v1` @v0.10.0) and benchmark_latency.py draws its prompts once, before
 * the warm-up runs, so the timed runs find every full block of them cached.
 */
export function staticBatchSeconds(
  model: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
): number {
  const arch = servedArch(model, o);
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t, true);
  const prompt = promptTokensOf(o);
  const out = outputTokensOf(o);
  const tr = decodeTraffic(m, o, t, r, o.batch, prompt);
  const step = decodeStep(m, o, t, r, false, meanContextOf(o)).stepSeconds;
  // Prefix caching: the cached share of each prompt is not prefilled again, as servingTime's (a harness that times
  // the same prompts it warmed up with finds their full blocks in the cache; its attention reads not counted).
  const fresh = freshPromptTokens(prompt, o.prefixCacheFraction);
  const gpuSeconds = prefillTime(m, o, r, tr, fresh, o.batch, t) + (out - 1) * step;
  // A served batch (a burst of `vllm bench serve`) also passes every request and streamed token through the
  // frontend, which overlaps the GPU (time/frontend.ts). An offline batch (LLM.generate: no HTTP, no chat template)
  // takes the same bound, which at its sizes (up to a few hundred requests) stays under the GPU's work.
  return Math.max(gpuSeconds, frontendSeconds(o, t, o.batch, out));
}
