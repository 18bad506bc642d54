/**
 * vLLM V1's piecewise CUDA graphs (its default until vllm-project/vllm#25444, 2025-09-23, made decode steps replay one full
 * graph, FULL_AND_PIECEWISE): torch.compile splits each layer's graph at the attention op
 * (CompilationConfig.splitting_ops, vllm.unified_attention_with_output), captures the pieces between, and runs the
 * attention op eagerly from Python (https://github.com/vllm-project/vllm/pull/14437, docs/design/v1/torch_compile.md:
 * "we only capture the cudagraph for the piece of graph between attention operations"). The host issues each
 * layer's attention calls while the GPU runs the pieces; a step takes the longer of the two. vLLM's backends say so
 * themselves: "With piece-wise CUDA graphs, this method is executed in eager-mode PyTorch ... `view` and `slice` (or
 * `[:n]`) operations are surprisingly slow even in the case they do not invoke any GPU ops" (the note atop
 * TritonAttentionImpl.forward and FlashAttentionImpl.forward, vllm/v1/attention/backends/). Counted from the decode
 * path of the attention backends at vllm-project/vllm v0.10.0, views and slices included (time/piecewise.ts prices
 * each call at EAGER_OP_SECONDS), but for FlashAttention, whose op's Python was timed and whose kernels alone are
 * counted. Only the attention ops split the graph (CompilationConfig._attention_ops; the
 * FusedMoE op joins splitting_ops only with VLLM_ALL2ALL_BACKEND=deepep_high_throughput, set_splitting_ops_for_v1,
 * vllm/config/compilation.py of the vllm 0.10.2 wheel): an MoE layer's experts replay inside the pieces.
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';

// The Python of a layer's attention op as it runs eagerly between the pieces, timed on a CPU with its two kernels
// stubbed in the vllm 0.11.0 wheel (scripts/measure/vllm_eager_layer_host.py `attention_ops`,
// test/fixtures/measure/vllm-piecewise-attention-host.json: 19 µs at 1, 16 and 64 sequences): the dispatcher's call of
// torch.ops.vllm.unified_attention_with_output, its forward-context lookup, FlashAttentionImpl.forward's unbind,
// slices and expands, _custom_ops.reshape_and_cache_flash and the flash-attn wrapper. 0.11.0 issues the one op the
// piecewise-default releases did (0.15.1 splits the cache write into a second op, unified_kv_cache_update: 33 µs).
export const VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS = 19e-6;

export const VLLM_PIECEWISE_ATTENTION_CALLS: NonNullable<
  FrameworkProfile['piecewiseAttentionCalls']
> = {
  // FlashAttentionImpl.forward (vllm/v1/attention/backends/flash_attn.py): its two kernels, reshape_and_cache_flash and
  // flash_attn_varlen_func; the unbind, slices and descale expands around them are in kvPythonSeconds.
  kv: 2,
  kvPythonSeconds: VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS,
  // MLACommonImpl.forward (vllm/v1/attention/backends/mla/common.py): the output, q, k_c_normed and k_pe slices to
  // the scheduled tokens (4), q.view, the decode/prefill slices of q, k_pe and k_c_normed (4), k_pe.squeeze and
  // slot_mapping.flatten (2), concat_and_cache_mla, then for the decode tokens split, transpose, bmm by W_UK_T,
  // transpose; FlashMLAImpl._forward_decode (mla/flashmla.py): cat, unsqueeze of q and of the cache,
  // flash_mla_with_kvcache; _v_up_proj: view, transpose, bmm by W_UV, transpose, reshape; the slice and copy into
  // the output (2): 27.
  mla: 27,
  // The GPU's own cost of the split, beyond the host's calls: vllm-project/vllm#20059 (comment of 2025-06-29, one GPU,
  // Qwen2.5-1.5B-Instruct, 28 layers, ShareGPT at 1 request/s) gives a median TPOT of 5.42 ms with piecewise graphs and
  // 5.02 ms with full graphs over the same piecewise FX graph (FULL_AND_PIECEWISE's structure): 0.40 ms a step, 14 µs a
  // layer, where the model's eager calls (28 x 80 µs) stay under the GPU's step. vllm-project/vllm#47089's
  // Qwen3-235B-A22B FP8 on B200s, whose layers keep the GPU busier still, gives 0.67 ms over 94 layers (7 µs) at batch 1.
  gapSeconds: 14e-6, // GPU idle per piecewise attention layer, vllm-project/vllm#20059
  // The host replays each captured piece with its own cudaGraphLaunch (CUDAPiecewiseBackend.__call__ ->
  // entry.cudagraph.replay(), vllm/compilation/cuda_piecewise_backend.py), on the thread that issues the eager attention
  // calls between them, so the launches' host time adds to those calls. cudaGraphLaunch's host time grows with the
  // graph's kernel nodes: 1.983 ms for vLLM's 2,187-node target-verify graph, 2.826 ms for SGLang's 2,876-node one
  // (sgl-project/sglang#29960, DeepSeek-V4-Flash on two RTX PRO 6000, torch 2.13, CUDA activity of 12 steady cycles):
  // 0.91 and 0.98 µs a node; vLLM's figure taken, on another host than any calibration row's.
  pieceLaunchNodeSeconds: 0.91e-6, // cudaGraphLaunch host time a node, sgl-project/sglang#29960 (vLLM's graph)
  // A model with attention sinks (gpt-oss): vLLM v0.10.1 gives its V1 engine FlashAttention only on compute capability
  // 9.x, FA3 taking the sinks as s_aux; on 10.0 FlashInfer where it is installed, its TRT-LLM decode kernel forced by
  // the sinks ("If sinks are being used, we must use TRTLLM attention", vllm/utils/flashinfer.py use_trtllm_attention);
  // elsewhere TritonAttentionBackend ("if has_sink and not cls.is_device_capability(90): ... Using Triton backend",
  // CudaPlatform.get_attn_backend_cls, https://github.com/vllm-project/vllm/blob/v0.10.1/vllm/platforms/cuda.py), as on
  // ROCm unless VLLM_ROCM_USE_AITER is set (off by default; vllm/platforms/rocm.py, vllm/envs.py of the v0.10.1 wheel).
  // Blackwell is taken to have FlashInfer: gpt-oss's guide of August 2025 says "NVIDIA Blackwell requires installation
  // of FlashInfer library" (vllm-project/recipes@0012db8 OpenAI/GPT-OSS.md), and without it v0.10.1's MXFP4 experts on
  // 10.0 need OpenAI's triton_kernels, which no vLLM wheel required then.
  sinks: {
    kvCc: [9],
    // FlashInferImpl.forward (vllm/v1/attention/backends/flashinfer.py, v0.10.1) on a decode step: the cache's two K/V
    // slices, reshape_and_cache_flash, the query and output slices, the cache permute, the decode query's slice and
    // .contiguous(), the block-table and sequence-length slices, the output slice passed as `out` (11); flashinfer
    // 0.2.11's trtllm_batch_decode_with_kv_cache (flashinfer/decode.py, the version vllm[flashinfer] pins): the cache
    // unbind, the query unsqueeze and the kernel's op (3).
    flashinfer: { cc: [10], torch: 14 },
    // TritonAttentionImpl.forward (vllm/v1/attention/backends/triton_attn.py, v0.10.1): kv_cache.unbind,
    // reshape_and_cache_flash, the query and output slices, the k and v descale expands (6), then unified_attention
    // (vllm/attention/ops/triton_unified_attention.py): BLOCK_M 16 rows, BLOCK_Q = 16 / (query heads per K/V head);
    // a decode step with (rows // BLOCK_Q + sequences) x K/V heads <= 128 splits the keys into 16 segments
    // (three torch.empty buffers, kernel_unified_attention_3d and reduce_segments), else one kernel_unified_attention_2d,
    // whose program for a query block and K/V head walks its sequence's cache blocks from the first, one block a tile,
    // masking the keys outside a sliding window instead of skipping them (`for j in range(0, num_blocks)`, num_blocks =
    // cdiv(seq_len, BLOCK_SIZE): the same file of the v0.10.1 wheel; time/piecewise.ts unsplitTritonLayers).
    blockQueries: 16,
    splitGrid: 128,
    split: { torch: 9, triton: 2 },
    single: { torch: 6, triton: 1 },
  },
};
