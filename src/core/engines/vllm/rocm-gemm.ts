/**
 * vLLM's decode linears on ROCm (FrameworkProfile.rocmLibraryGemm; time/rocm-gemm.ts). An unquantized linear runs
 * `rocm_unquantized_gemm`: on a gfx9 GPU with 16-bit activations, K a multiple of 8 and no bias, the skinny kernels
 * take it (`wvSplitK` for 1-4 batch rows, `LLMM1` for one), otherwise `torch.nn.functional.linear`, i.e. hipBLASLt
 * (vllm/model_executor/layers/utils.py `rocm_unquantized_gemm_impl`, the vllm 0.10.1 wheel; `VLLM_ROCM_USE_SKINNY_GEMM`
 * on by default, vllm/envs.py). A per-tensor FP8 linear runs `rocm_per_tensor_w8a8_scaled_mm`: `wvSplitKQ` on MI300-
 * class GPUs for one batch row, otherwise `torch._scaled_mm`, again hipBLASLt
 * (vllm/model_executor/layers/quantization/utils/w8a8_utils.py, same wheel).
 *
 * hipBLASLt's call at decode M on an MI300X: ROCm/rocm-libraries#12329 times it beside the `wvSpltK` kernel at 14 fp16
 * shapes of 90 MB to 2 GB (its table: N 4096-76032, K 8192-17792; e.g. N 4096 K 11008 32.77 µs, N 76032 K 13312
 * 497.12 µs). Least squares of time against weight bytes: 9.7 µs + the bytes at 4.14 TB/s, 0.964 of the modelled
 * 0.81 x 5.3 TB/s stream rate (the skinny kernel in the same table: 4.2 µs + the bytes at 4.70 TB/s, about the
 * modelled kernel gap and read). Checked outside the fit: torch's FP8 GEMM at M = 1 on an MI300X takes 14.94, 77.64 and
 * 31.07 µs for Llama-3.1-405B's TP-8 QKV, gate/up and down (https://huggingface.co/blog/mi300kernels), which the fit
 * puts at 18.8, 62.4 and 36.1 µs (117.3 against 123.6 in sum); and on an MI355X torch's bf16 GEMM at M = 32 takes
 * 10.9, 12.8 and 13.2 µs for 5.5, 14.7 and 33.5 MB (ROCm/FlyDSL#274), where the fit at MI355X's stream rate gives
 * 10.6, 12.1 and 15.1 µs: the fixed cost holds on gfx950 and at 32 rows.
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';

export const VLLM_ROCM_LIBRARY_GEMM: NonNullable<FrameworkProfile['rocmLibraryGemm']> = {
  floorSeconds: 9.7e-6, // hipBLASLt per call at decode M, MI300X, ROCm/rocm-libraries#12329 (fit above)
  readShare: 0.964, // hipBLASLt's read, 4.14 / (0.81 x 5.3) TB/s, same fit
  // wvSplitK takes 1-4 rows of a bias-free 16-bit linear, wvSplitKQ one row of a per-tensor FP8 one (vllm 0.10.1 and
  // 0.10.2). Later builds pass the bias to wvSplitK, take up to 4 FP8 rows (vllm-project/vllm@08386ee1df6efe25f38a6e6c888f2034ae19a43f
  // quantization/kernels/scaled_mm/rocm.py) and 10-128 rows of a 16-bit linear on gfx950 (wvSplitKrc): not modelled,
  // no version axis; no scored ROCm row of those builds runs such a batch.
  skinnyRows16: 4,
  skinnyRowsFp8: 1,
};
