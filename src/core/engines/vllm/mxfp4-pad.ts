/**
 * How vLLM pads an MXFP4 MoE checkpoint's routed experts (gpt-oss) for each kernel path: `Mxfp4MoEMethod.create_weights`
 * rounds one GPU's expert width (`intermediate_size_per_partition`) and the hidden size up, allocates w13 as
 * [E, 2 x width, hidden / 2] and w2 as [E, hidden, width / 2] bytes at the padded sizes, and `FusedMoE.forward` pads
 * the hidden states to the padded hidden size (`F.pad`, vllm/model_executor/layers/fused_moe/layer.py) where the path
 * pads it: the expert GEMMs then run over the padded shape. Read in the vllm 0.10.1 and v0.11.0 wheels
 * (vllm/model_executor/layers/quantization/mxfp4.py) and v0.19.0's `mxfp4_round_up_hidden_size_and_intermediate_size`
 * (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py). gpt-oss (hidden and expert width 2880) on one GPU: Marlin's
 * 3072 x 2944 is 9.0% more bytes, FlashInfer's and ROCm's 3072 x 3072 13.8%, triton_kernels' none (width to 64, the
 * hidden size as is: vLLM's 9.x default, which vramplan's launch replaces with Marlin, launch.ts mxfp4MoeBackendArgs).
 */
import type { Mxfp4ExpertProfile } from '../../memory/mxfp4-expert-profile.js';

export const VLLM_MXFP4_EXPERT_PAD: NonNullable<Mxfp4ExpertProfile['mxfp4ExpertPad']> = {
  // Marlin (compute capability 8.x in every build; 9.x where `--moe-backend marlin` asks for it (VLLM_MXFP4_USE_MARLIN in older builds), or the 0.10.1 wheel, whose
  // torch 2.7.1 fails `_should_use_marlin`'s 2.8 check): "The moe marlin kernel requires that for each linear
  // n % 256 == 0 and k % 128 == 0": width to 128, hidden to 256.
  marlin: { hidden: 256, width: 128 },
  // FlashInfer's TensorRT-LLM-gen MoE (10.x, the default from vllm-project/vllm#23008): both to 256 ("pad the
  // intermediate size to be a multiple of 2 * mxfp4_block ... other padding to increase performance").
  trtllmGen: { hidden: 256, width: 256 },
  // ROCm (triton_kernels, or AITER's CK MoE from v0.19.0): both to 256 from v0.11.0 (0.10.1: width to 128).
  rocm: { hidden: 256, width: 256 },
};
