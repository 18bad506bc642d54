/** What the vllm engine really allocates: vllm's memory profile (core/memory reads it). */
import { TORCH_CONTEXT_MIB, type FrameworkProfile } from '../../memory/framework-profile.js';

export const VLLM_MEMORY: FrameworkProfile = {
  id: 'vllm',
  untiesEmbeddings: false,
  embedTargetsTrainFully: false,
  gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
  bnbSavesInput: false,
  bnbQuantizesAll: false,
  chunkedLossCompiles: false,
  fsdpRootUnit: false,
  name: 'vLLM',
  eagerFp32RmsNorm: false,
  fusedSwiglu: true,
  sdpaExpandsKv: false,
  attnOutputCopy: false,
  fusedQkvView: false,
  loraDropout: false,
  fp32Adapters: false,
  kbitUpcastsToFp32: false,
  loss: { upcast: false, chunkedForward: 0, chunkedBackward: 0 },
  adamImpl: 'fused',
  prefillLogits: 'last',
  kvCache: 'paged-pool', // preallocates gpu_memory_utilization x capacity minus weights and activations
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.02,
  deepspeedOptimizer: false,
  gatheredLayers: 0,
  // Custom all-reduce (vllm/distributed/device_communicators/custom_all_reduce.py, on by default for TP within an
  // NVLink node): 8.5-11.8 µs at 4-32 KB over TP 2/4/8 on H100 (vLLM's kernel in the table of
  // https://github.com/sgl-project/sglang/pull/2904), where NCCL's small all-reduce takes ~25 µs.
  allReduceSeconds: 9e-6,
  // Async scheduling (the CPU schedules step n+1 while the GPU runs step n) is on by default since
  // https://github.com/vllm-project/vllm/pull/27614 (2025-12-29; vllm/config/scheduler.py async_scheduling: None =
  // on unless incompatible), so the pinned vLLM hides its step's host work: no stepHostSeconds. Before that the V1
  // engine core applied the sampled tokens, scheduled and prepared inputs while the GPU waited: 0.8 ms a step,
  // worked out from calibration row vllm-rtn-8b-bf16-b1 (in sample; listed in calibration/assumed.json).
  serialStepHostSeconds: 8e-4, // vLLM serial scheduler
  // vLLM serves 4-bit GPTQ/AWQ checkpoints with Marlin kernels (https://docs.vllm.ai/en/latest/features/quantization/); CUDA graphs on by default.
  quantFormat: 'gptq',
  int4QuantFormat: 'marlin',
  // --quantization bitsandbytes runs bitsandbytes' own kernels (https://docs.vllm.ai/en/latest/features/quantization/bnb.html);
  // int8/fp8 checkpoints run CUTLASS W8A8 (Marlin W8A16 where the GPU lacks FP8: time/index.ts kernelOn).
  quantFormatFor: {
    nf4: 'bnb',
    int8: 'cutlass',
    fp8: 'cutlass',
    mxfp4: 'cutlass',
    nvfp4: 'cutlass',
  },
  poolBudget: 'utilization',
  fusedKernels: true,
  // vllm/model_executor/layers/fused_moe: one fused Triton/CUTLASS MoE kernel per projection over all experts.
  moeDispatch: 'grouped',
  // An MoE layer's decode runs the router GEMM, fused_topk (topk_softmax), moe_align_block_size, the w13 and w2
  // fused_moe kernels with silu_and_mul between, then moe_sum: 7 kernels where a dense MLP runs 3 (gate_up GEMM,
  // silu_and_mul, down GEMM) (fused_experts_impl and fused_moe in
  // https://github.com/vllm-project/vllm/blob/000d1458098ebf47491dad470d164d443ab18a9c/vllm/model_executor/layers/fused_moe/fused_moe.py).
  moeRoutingKernels: 4,
  expertParallel: true, // --enable-expert-parallel
  // SpeculativeConfig.method: ngram, eagle3, mtp (vllm/config/speculative.py at 002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443).
  speculative: ['eagle3', 'mtp', 'ngram'],
  // --enable-lora --max-loras --max-lora-rank (https://docs.vllm.ai/en/latest/features/lora.html).
  multiLora: true,
  source: 'https://docs.vllm.ai/en/latest/configuration/conserving_memory.html',
};
