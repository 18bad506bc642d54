/**
 * An engine's decode kernels beyond the counted chain (FrameworkProfile.decodeFeatureKernels). `sharedExpertBeside`:
 * the MoE layers' shared expert runs on a second stream beside the router and routed experts, so its linears'
 * activation kernels are off the step's critical path (not counted per block-FP8 linear). `trtllmMoe16`: the MoE layers'
 * 16-bit experts run through FlashInfer's TensorRT-LLM MoE instead of the Triton fused_moe chain the engine's routing
 * count describes: the kernels an MoE layer launches beyond that count (negative: fewer), and the Triton kernel's
 * K-loop chain (time/moe-call.ts fusedMoeChainSeconds) not paid. `trtllmMoeMxfp4`: the same for MXFP4 experts run
 * through its FP4 block-scale MoE. `trtllmMoeBlockFp8`: block-scaled FP8 experts run through its FP8 block-scale MoE
 * (the call's latency: FrameworkProfile.moeCallSeconds.sm100BlockFp8, time/moe-call.ts). `nvfp4Layer`: per decoder layer of NVFP4 weights, the kernels that quantize its dense
 * linears' activations to FP4 before their GEMMs. `recurrentLayer`: per recurrent (linear-attention) layer of a hybrid
 * model, the kernels its mixer launches beyond the attention chain a plain layer is counted with. `gatedAttentionLayer`:
 * per attention layer of a model whose attention output is gated, the gate's kernels. `moeLayer`: per MoE layer, kernels
 * the engine's MoE call launches for this model beyond the counted routing chain. `attentionLayer`: per attention layer,
 * kernels the model's attention launches beyond the chain (a q/k norm over every head: its statistic and its apply).
 * `attentionTpAllReduces`: per attention layer under attention TP > 1, the all-reduces of such a norm's per-token
 * statistic (two fp32 a token; time/decode-tp.ts decodeTpSeconds prices each at that message). `indexerLayer`: per
 * layer that runs a sparse-attention indexer of its own (ModelFacts.indexerLayers, DeepSeek Sparse Attention), the
 * indexer's kernels. `torchBiasedRouter`: per MoE layer of a model whose router adds a score correction bias and which
 * the engine routes through its torch.compile'd grouped top-k (its fused gates not taken), the kernels beyond the
 * chain's one top-k, for the model types it names. A fused gate replaces it where the router fits one: a power-of-two
 * routed-expert count with at most `gateMaxPerGroup` experts a group; from release `fusedPow2From` on
 * (TimeOptions.engineVersion; none given: the newest) a power-of-two count in one group of at most `pow2MaxExperts`
 * with top-k at most `pow2MaxTopK`; and from each `countGates` entry's release on, its exact expert and group count.
 * `mlaTwoPass`: the MLA layers' decode attention is two kernels over the cache, q.K into logits (one per local query
 * head and cached token, `MLA_TWO_PASS_LOGIT_BYTES` each), then a softmax-and-reduce kernel that reads those logits and
 * the latent's value columns (the first kv_lora_rank of each cached row) again (time/decode-attention.ts
 * mlaTwoPassBytes). `rocmBlockFp8Targets`: the AMD gfx targets on which the engine runs a block-scaled FP8 checkpoint's
 * linears (and, where AITER's MoE does not run the experts, its fused-MoE inputs) after a per-token-group activation
 * quantization of their own, as the blockwise path does on NVIDIA (`blockFp8Linear` a linear, `blockFp8Moe` an MoE
 * layer; no SM90 row pad).
 */
export interface DecodeFeatureKernels {
  mlaLayer: number;
  sharedExpert: number;
  biasedRouter: { modelTypes: readonly string[]; kernels: number };
  blockFp8Linear: number;
  blockFp8PadSm90: number;
  blockFp8Moe: number;
  sharedExpertBeside?: boolean;
  trtllmMoe16?: number;
  trtllmMoeMxfp4?: number;
  trtllmMoeBlockFp8?: boolean;
  nvfp4Layer?: number;
  recurrentLayer?: number;
  gatedAttentionLayer?: number;
  moeLayer?: number;
  attentionLayer?: number;
  attentionTpAllReduces?: number;
  indexerLayer?: number;
  torchBiasedRouter?: TorchBiasedRouter;
  tritonKernelsMxfp4Routing?: readonly TritonKernelsMxfp4Routing[];
  mlaTwoPass?: boolean;
  rocmBlockFp8Targets?: readonly string[];
}

/**
 * The bytes of one logit the two-pass MLA decode writes and reads again (DecodeFeatureKernels.mlaTwoPass): fp16, the
 * attention's reduce type unless --triton-attention-reduce-in-fp32 (sglang==0.3.0 layers/decode_attention.py
 * REDUCE_TORCH_TYPE; sglang==0.4.0.post1 triton_backend.py reduce_dtype; the flag's default False in both).
 */
export const MLA_TWO_PASS_LOGIT_BYTES = 2; // https://pypi.org/project/sglang/0.3.0/ decode_attention.py REDUCE_TORCH_TYPE

/**
 * The build a timing ran (TimeOptions.engineVersion, TimeOptions.attentionBackend): an engine whose decode kernels
 * differ by release, or by the attention backend a run named, picks its table by it. Absent: the engine's newest.
 */
export interface EngineBuild {
  version?: string;
  attentionBackend?: string;
}

/**
 * DecodeFeatureKernels.tritonKernelsMxfp4Routing: per MoE layer of MXFP4 experts the engine runs through triton_kernels'
 * `matmul_ogs` by default (no quantization format named: TimeOptions.quantFormat), the kernels its routing-data build
 * launches beyond the counted Marlin chain, in the releases from `from` up to (not including) `before`, named by
 * TimeOptions.engineVersion; one entry a span of releases running the same chain. A run whose release is not given is
 * not priced so (the launch asks for Marlin).
 */
export interface TritonKernelsMxfp4Routing {
  kernels: number;
  from: string;
  before: string;
}

/** DecodeFeatureKernels.torchBiasedRouter: an engine's torch grouped top-k and the fused gates that replace it. */
export interface TorchBiasedRouter {
  kernels: number;
  modelTypes: readonly string[];
  gateMaxPerGroup: number;
  fusedPow2From: string;
  pow2MaxExperts: number;
  pow2MaxTopK: number;
  countGates: readonly { experts: number; groups: number; from: string }[];
}

/**
 * An engine's table by the config's model_type, the GPU's compute capability and, on AMD (cc 0), its gfx target, and
 * the build the timing ran where the engine's kernels differ by it.
 */
export type DecodeFeatureKernelsOf = (
  modelType: string,
  cc: number,
  gfx?: string,
  build?: EngineBuild,
) => DecodeFeatureKernels | undefined;

/** No kernels beyond the counted chain: the base an engine's table for one model type overrides. */
export const NO_FEATURE_KERNELS: DecodeFeatureKernels = {
  mlaLayer: 0,
  sharedExpert: 0,
  biasedRouter: { modelTypes: [], kernels: 0 },
  blockFp8Linear: 0,
  blockFp8PadSm90: 0,
  blockFp8Moe: 0,
};
