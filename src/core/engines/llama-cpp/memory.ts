/** What the llama.cpp engine really allocates: llama-server's memory profile (core/memory reads it). */
import type {
  CacheLayoutProfile,
  FrameworkProfile,
  RowSplitProfile,
} from '../../memory/framework-profile.js';
import { SERVING_BASE } from '../serving-base.js';
import { ggmlMoeRoutingKernels } from './moe-kernels.js';

// The CUDA runtime and cuBLAS handle of a process without PyTorch (no caching allocator, no NCCL): ~300 MiB
// (pytorch/pytorch#86509 measures 287 MB for the bare context with lazy loading; assumed alike).
const GGML_CUDA_CONTEXT_MIB = 300;

// llama.cpp's physical batch (n_ubatch, default 512: https://github.com/ggml-org/llama.cpp/blob/master/common/common.h): the prefill chunk and the rows of the
// output buffer its compute graph reserves (llama-context.cpp output_reserve: n_outputs x n_vocab fp32).
export const LLAMA_CPP_UBATCH = 512;

/**
 * llama.cpp's cache layout: the recurrent cache in fp32 (llama_memory_recurrent, type_r = type_s = GGML_TYPE_F32 in
 * src/llama-model.cpp create_memory, https://github.com/ggml-org/llama.cpp); an SWA cache of n_swa + n_ubatch cells
 * per sequence padded to 256 (src/llama-kv-cache-iswa.cpp, "the SWA cache is always padded to 256 for
 * performance", https://github.com/ggml-org/llama.cpp/issues/17037); an fp8 KV cache written as q8_0 blocks of 32
 * int8 values and one fp16 scale, 34 bytes (block_q8_0,
 * https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h).
 */
const LLAMA_CPP_CACHE_LAYOUT: CacheLayoutProfile = {
  convStateBytes: 4, // fp32 type_r (src/llama-model.cpp create_memory, https://github.com/ggml-org/llama.cpp)
  temporalStateBytes: 4, // fp32 type_s (src/llama-model.cpp create_memory, https://github.com/ggml-org/llama.cpp)
  sliding: { kind: 'padded', pad: 256 },
  fp8KvElementBytes: 34 / 32, // block_q8_0 (https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-common.h)
  fp8KvType: 'q8_0', // -ctk/-ctv q8_0 (tools/server/README.md --cache-type-k)
  q4KvElementBytes: 18 / 32, // block_q4_0, 32 4-bit values + an fp16 scale (https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/ggml/src/ggml-common.h)
};

/**
 * What ggml's CUDA backend does for a matrix in a split buffer (ggml_cuda_op_mul_mat, ggml-org/llama.cpp
 * ggml/src/ggml-cuda/ggml-cuda.cu @f6d77a1ba0ac794e950bd3abb630b904bdcd8fb8): the main GPU quantizes the activation
 * to q8_1 and records an event; each other GPU's stream waits on it, copies the quantized activation over
 * (cudaMemcpyPeerAsync), multiplies its rows and copies its rows of the fp32 result back into the main GPU's
 * (cudaMemcpy3DPeerAsync) before the main stream waits on its event: two copies in series per matrix and GPU, each
 * submitted from the host in the op loop. Without peer access (GeForce cards over PCIe; or above
 * GGML_CUDA_PEER_MAX_BATCH_SIZE tokens, ggml_cuda_set_peer_access) the driver stages a peer copy through host memory.
 * Split buffers turn off the matmul fusions ("TODO: add support for fusion for split buffers", @f6d77a1b) and CUDA-graph
 * capture (the graph compatibility check, "Split buffers are not supported by CUDA graph capture", in every
 * ggml-cuda.cu revision read since graphs came with ggml-org/llama.cpp#6766).
 */
const LLAMA_CPP_ROW_SPLIT: RowSplitProfile = {
  copiesPerMatmul: 2, // src1 out, dst rows back (ggml_cuda_op_mul_mat, ggml-cuda.cu @f6d77a1b)
  // A small cudaMemcpyAsync costs 5-7 µs to submit (arXiv:2602.21548 §5.2): 6 µs a copy.
  copySeconds: 6e-6,
  inBytesPerElement: 36 / 32, // block_q8_1: 32 int8 and a half2 (ggml/src/ggml-common.h)
  outBytesPerElement: 4, // dst is fp32 (ggml_cuda_op_mul_mat, ggml-cuda.cu @f6d77a1b)
  tokensPerRound: 128, // MUL_MAT_SRC1_COL_STRIDE (ggml-cuda.cu @f6d77a1b; common.cuh later)
  peerMaxTokens: 128, // GGML_CUDA_PEER_MAX_BATCH_SIZE default (ggml-cuda.cu @f6d77a1b)
  // Kernels launched back to back take 3.8 µs each against 3.4 µs replayed from a graph, for 2.9 µs kernels
  // (https://developer.nvidia.com/blog/cuda-graphs/): 0.4 µs more GPU idle a kernel.
  ungraphedKernelSeconds: 0.4e-6,
};

export const LLAMA_CPP_MEMORY: FrameworkProfile = {
  ...SERVING_BASE,
  id: 'llama.cpp',
  name: 'llama.cpp',
  // llama_kv_cache allocates K and V for all n_ctx cells of every layer at start (src/llama-kv-cache.cpp).
  kvCache: 'static',
  layerOffload: true,
  // The text GGUF holds the language model only: convert_hf_to_gguf.py's text classes drop the tower and projector
  // (Gemma3Model: "skip vision tensors"; Llama4Model, Mistral3Model, Qwen2VLModel alike), which `--mmproj` writes to
  // a GGUF of their own (MmprojModel), matrices at --outtype (f16 in the published mmproj-*-f16.gguf files) and 1-D
  // tensors and norms at F32 (prepare_tensors). llama-server loads it with --mmproj (or beside a -hf repository that
  // ships one) onto the GPU (mmproj_use_gpu = true, common/common.h; clip_ctx takes the first GPU backend) and
  // encodes one image a graph (clip_image_batch_encode: "only support batch size of 1"). Read in the tree
  // llama-cpp-python 0.3.17 vendors (ggml-org/llama.cpp @49bfddeca18e62fa3d39114a23e9fcbdf8a22388: convert_hf_to_gguf.py,
  // tools/mtmd/clip.cpp, tools/server/server-context.cpp).
  visionFile: { matrixBytes: 2, vectorBytes: 4, imagesAtOnce: 1 },
  // C++ graph nodes, no Python layer: no eager layer's custom-op count (eagerLayerExtraOps).
  // --split-mode row: -mg is "the GPU to use for ... intermediate results and KV (with split-mode = row)"
  // (tools/server/README.md at 25d5b0c5): the matrices split over --tp GPUs, the cache whole on the main one.
  tpRowSplit: LLAMA_CPP_ROW_SPLIT,
  ubatch: LLAMA_CPP_UBATCH,
  cacheLayout: LLAMA_CPP_CACHE_LAYOUT,
  // llama-server: -c tokens of KV split evenly over -np slots (tools/server/README.md).
  kvSlots: true,
  // llama-server is one C++ process (tools/server/server.cpp): no Python API-server profile (servingFrontend) is
  // sourced for it.
  dmmvF16: true,
  // Its own CUDA attention kernels (ggml-cuda/fattn*.cu): no KV-rate figure (decodeAttention), stream rate.
  cudaContextMiB: GGML_CUDA_CONTEXT_MIB,
  // ggml-alloc plans each buffer exactly (ggml_gallocr): no caching-allocator slack.
  allocatorSlack: 0,
  quantFormat: 'gguf',
  int4QuantFormat: 'gguf',
  // MXFP4 GGUF experts run through the same mul_mat_vec_q / MMQ kernels as the other GGUF types (vec_dot_mxfp4_q8_1;
  // ggml-org/llama.cpp ggml/src/ggml-cuda/mmvq.cu @000f4625abc4efd46ee160e4473ffe0da004082e).
  // NVFP4 GGUF tensors likewise (vec_dot_nvfp4_q8_1 beside the MXFP4 one, ggml-org/llama.cpp#19769).
  quantFormatFor: { mxfp4: 'gguf', nvfp4: 'gguf' },
  // An MXFP4 MoE GGUF ("MXFP4 MoE" file type) stores the experts in MXFP4 and every other tensor, output included,
  // in Q8_0 (llama_tensor_get_type, LLAMA_FTYPE_MOSTLY_MXFP4_MOE: "MoE tensors -> MXFP4, other tensors -> Q8_0";
  // ggml-org/llama.cpp src/llama-quant.cpp @8784689fee07c6daabf3487d24e1535534ef6e6b). gpt-oss-20b's file is
  // 11.27 GiB in llama-bench's size column, the MXFP4 experts plus Q8_0 for the rest (BF16 would be 12.8 GiB).
  mxfp4Dense: 'q8_0',
  // ggml-cuda replays the decode graph as a CUDA graph (ggml-cuda.cu, GGML_CUDA_USE_GRAPHS).
  fusedKernels: true,
  // Its own kernels (mul_mat_vec_q, fused norms) keep the shared graph gap, not the serving engines' per-kernel cost
  // sized from cuBLAS/FlashInfer chains (graphKernelSeconds, engines/graph-kernel.ts): llama.cpp's decode rows are
  // timed slow, not fast.
  // The HIP build runs its own mat-vec and MMQ kernels on ROCm (no hipBLASLt fixed cost, rocmLibraryGemm), its own
  // flash-attention kernel for a prefill (no rocmPrefillAttention) and ggml's own attention kernels at decode, not
  // vLLM's paged ones (no rocmPagedDecode): the KV read at the stream rate.
  // The shared gap in SM cycles: 2.5 µs at the H100 SXM's 1.98 GHz (time/train-work.ts GRAPH_KERNEL_SECONDS, from an
  // H100 SXM5 step, https://cloudai.pt/tag/cuda-graphs/), so a kernel boundary costs 1.96 µs on an RTX 4090 and 3.5
  // on an A100. One tester, two cards (ggml-org/llama.cpp#6766: LLaMA 2 7B q4_0 with CUDA graphs, 128.27 tok/s on an
  // RTX 3090, 146.81 on an RTX 4090; about 1,000 unfused kernels and 3.75 GB a token) fit a per-kernel cost in cycles
  // with a read at 0.65 of peak; a cost in seconds would need 0.29. At this level the pair reads at 0.77-0.82 of peak,
  // the GGUF family's read rate (time/decode.ts KERNELS.gguf). calibration/assumed.json.
  graphKernelCycles: 2.5e-6 * 1.98e9,
  // Builds before ggml-cuda fused ops (its first fusion, of RMS norm and multiply, came with
  // https://github.com/ggml-org/llama.cpp/pull/14800, July 2025) launched every op of the graph: build_llama's
  // decode layer is 24 kernels, counted in ggerganov/llama.cpp src/llama.cpp
  // @0026c810d7c18743baa71198409734178df7769a (build_llama, llm_build_norm, llm_build_kv, llm_build_ffn; attention
  // without -fa): two RMS norms of rms_norm + mul (4), 7 matmuls, 2 ropes, K and V copied into the cache (2), KQ,
  // soft_max_ext and KQV (3), the merged heads made contiguous (1), SiLU and the gate product (2), two residual
  // adds (2); views, reshapes and permutes launch nothing. A quantized matmul first quantizes its input to q8_1 in
  // a kernel of its own (ggml_cuda_op_mul_mat -> quantize_row_q8_1_cuda, ggerganov/llama.cpp ggml-cuda.cu
  // @005de593ad4aa2c8db115cbb41a37bda2fb20b77).
  // With -fa the attention is one kernel: ggml_flash_attn_ext and a reshape that launches nothing, where the count above
  // has KQ, soft_max_ext, KQV and the contiguous copy of the merged heads (llm_build_kqv, ggerganov/llama.cpp src/llama.cpp
  // @0026c810d7c18743baa71198409734178df7769a): 3 fewer a layer; the K and V stores stay 2 copies either way.
  unfusedDecodeKernels: { perLayer: 24, perQuantizedLinear: 1, flashAttentionFewer: 3 }, // ggml build_llama, unfused
  // ggml's Metal backend encodes every graph node as its own dispatch, serially or with a buffer barrier between
  // dependent nodes, and replays no graph (ggml_metal_graph_compute, ggerganov/llama.cpp ggml-metal.m
  // @006e74a493d87a1e6df1256ae9318b5030338776). A dispatch with its barrier costs 5.16 µs of GPU time in one encoder on
  // an M2 Pro (832 inert dispatches injected into a decode token: +4.30 ms; antonellof/ferrox#149), in place of the
  // CUDA graph gap (assumed.json: one chip, another engine's encoder). Its mat-vec kernels take the f32
  // activation as it is (kernel_mul_mat_q4_0_f32 and kin, same commit): no quantizing kernel before a quantized linear.
  metalDecode: { kernelSeconds: 5.16e-6, quantizedLinearKernels: 0 },
  // ggml-cuda's GEMV fusion (ggml-org/llama.cpp#16715, October 2025) runs a linear's bias add (MUL_MAT + ADD, MUL_MAT_ID
  // + ADD_ID) and a gate/up pair with its GLU (SWIGLU, GEGLU, SWIGLU_OAI; biases included) inside one mul_mat_vec_q /
  // mul_mat_vec_f, and only at one column: ggml_cuda_should_fuse_mul_mat_vec_q and _f return false where dst->ne[1]
  // != 1 (MUL_MAT) or dst->ne[2] != 1 (MUL_MAT_ID), "we only support fusion for ncols_dst = 1" (ggml/src/ggml-cuda/
  // ggml-cuda.cu @49bfddeca18e62fa3d39114a23e9fcbdf8a22388, the tree llama-cpp-python 0.3.17 vendors, March 2026).
  // Apart, a bias is an ADD kernel; a pair is two mat-vecs and the GLU, and on quantized weights each mat-vec
  // quantizes its activation to q8_1 first (ggml_cuda_mul_mat_vec_q), where the fused pair quantizes once.
  gemvFusion: { maxColumns: 1, perBiasedLinear: 1, gluPair: 2, gluPairQuantized: 1 },
  // llama-server runs its HTTP/slot loop between steps (~0.3 ms) and samples each slot on the CPU over the whole
  // vocabulary (common_sampler: logits copy, top-k/top-p/temperature chain): ~0.2 ms per slot (assumed).
  stepHostSeconds: 3e-4,
  seqHostSeconds: 2e-4,
  // Its host work between steps is the two figures above; vLLM's scheduler figures (serialStepHostSeconds,
  // asyncStepHostSeconds, engines/vllm/memory.ts) are vLLM's Python engine core's, not llama-server's.
  // update_slots puts each generating slot's sampled token in the batch, then fills it with pending prompt tokens
  // ("next, batch any pending prompts without exceeding n_batch", cont_batching on by default; tools/server/server.cpp
  // at 25d5b0c5): a prompt's chunk runs in the decode step.
  prefillInDecodeStep: true,
  // -tp splits matrices by rows (tpRowSplit): copies to and from the main GPU, no all-reduce kernel of its own
  // (no allReduceSeconds).
  moeDispatch: 'grouped',
  // vLLM's fused_moe call latency (moeCallSeconds) and its tiles (fusedMoeTile16) are its Triton kernel's; llama.cpp's
  // MUL_MAT_ID is another kernel. llama.cpp runs no block-scaled FP8 checkpoint (blockFp8Linear).
  // An MoE layer's kernels beyond a dense MLP's, counted in ggml's graph by build (engines/llama-cpp/moe-kernels.ts:
  // router mat-vec, top-k routing ops, the weights' multiply and the experts' sum, fused or apart).
  moeRoutingKernelsByGraph: ggmlMoeRoutingKernels,
  // MLA, shared-expert and block-FP8 decode kernels (decodeFeatureKernels) were not counted in ggml's graph: none.
  // CUDA graphs capture the whole decode graph (no piecewise attention calls), and the fp8 KV cache is q8_0 blocks
  // read by ggml's own flash-attention kernel (no fp8KvPrefillAttention, which is vLLM's compute capability 10.0
  // prefill path, vllm-project/vllm#25998).
  // The Mixtral-era MUL_MAT_ID ran one expert slot per op (op_params[0] = the slot) and, before launching that
  // expert's mat-vec, copied the routing ids to a host vector and waited on the stream (cudaMemcpyAsync then
  // cudaStreamSynchronize in ggml_cuda_mul_mat_id, ggerganov/llama.cpp ggml-cuda.cu
  // @005de593ad4aa2c8db115cbb41a37bda2fb20b77). Each such op costs a cudaMemcpyAsync submission, 5-7 µs
  // (arXiv:2602.21548 §5.2), and the stall a stream synchronize leaves before the next launch: 9.6 µs per kernel
  // synchronized after each launch against 3.8 µs launched back to back, for 2.9 µs kernels
  // (https://developer.nvidia.com/blog/cuda-graphs/): 6 + 5.8 µs.
  expertIdsSyncSeconds: 11.8e-6, // MUL_MAT_ID host round trip per op
  // That build's MoE branch of build_llama (llama.cpp @948ff137ec37f1ec74c02905917fa0afc9b97514, the tree
  // llama-cpp-python 0.2.23 vendors, December 2023) launches, beyond a dense MLP: the router, left F16 (quantize
  // skips ffn_gate_inp; convert.py writes 2-D tensors F16), through ggml_cuda_mul_mat_mat_batched_cublas on tensor
  // core GPUs (src1 to F16, the cuBLAS GEMM, dst back to F32: 3 kernels), soft_max, argsort (ggml_top_k), get_rows,
  // sum_rows and div: 8; and per expert slot, besides its 3 ggml_mul_mat_id ops (each ggml_cuda_mul_mat_id loops
  // over the batch rows, one quantize_row_q8_1 + mul_mat_vec_q pair a row) and SiLU and the gate product, the
  // routing-weight ggml_mul and the ggml_add into moe_out (none for the first slot): 2.
  perSlotMoeKernels: { routing: 8, perSlot: 2 }, // ggml build_llama MoE branch, December 2023
  // MUL_MAT_ID at a decode batch: up to MMVQ_MMID_MAX_BATCH_SIZE 4 tokens mul_mat_vec_q's multi-token path gives each
  // (expert slot, token) its own blocks, which read that slot's expert rows for the one token (ggml/src/ggml-cuda/
  // mmvq.cuh @26fa8d07a55c30f7e26238d866aa746c3cd15a47; mmvq.cu @000f4625abc4efd46ee160e4473ffe0da004082e, token_idx =
  // blockIdx.z, channel_x = ids[...]). Above it MMQ runs the experts with ncols_max = ne12, the step's tokens (mmq.cu
  // ggml_cuda_mul_mat_q @027ef8769913a5f665e287c5e1f13d9d633a9d57): mul_mat_q_case picks the mmq_x that covers them in
  // the fewest column tiles, in steps of 8, of 16 from 48 on Turing-class mma, up to 128 (mmq.cuh get_mmq_x_max_host,
  // mmq_get_granularity_host @6b8ed41f2be77c67e893b506d2693aa8c68c62d2), and every routed expert multiplies a whole tile.
  moeBatchKernel: {
    perSlotMaxTokens: 4, // MMVQ_MMID_MAX_BATCH_SIZE, mmvq.cuh
    tile: { minCc: 7.5, granularity: 8, wideFrom: 48, wide: 16, maxColumns: 128 }, // mmq.cuh, turing_mma_available
  },
  // llama-server sizes no paged pool (no server, no poolBudget): -c tokens over -np slots (kvSlots), and its slots
  // are not timed as a burst.
  expertParallel: false,
  // llama-server drafts only with a separate draft model (-md/--model-draft, --draft-max 16, --draft-p-min 0.8 in
  // tools/server/README.md at 25d5b0c5; no EAGLE-3 head, MTP layers or n-gram lookup there): none of the methods.
  speculative: [],
  // --lora FNAME (repeated) loads every adapter at start; a request picks its own with the `lora` field ("requests
  // with different LoRA configurations will not be batched together", tools/server/README.md at 25d5b0c5).
  multiLora: true,
  // update_slots batches only the slots whose adapter list equals the first generating slot's
  // (server_slot::can_batch_with: are_lora_equal, tools/server/server.cpp at 25d5b0c5).
  loraBatchesApart: true,
  source:
    'https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/tools/server/README.md',
};
