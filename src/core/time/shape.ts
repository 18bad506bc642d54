/** GEMM shape efficiency, shared by the language model's and the vision tower's time. Pure. */

// NVIDIA "Matrix Multiplication Background": small dimensions leave SMs idle (wave / tile quantization);
// a GEMM with a 1K dimension runs at ~70-80% of a 8K one. Modelled as d/(d+256) on the smaller of the
// token count and the per-GPU width (assumed shape of that curve).
export function shapeFactor(tokens: number, width: number): number {
  const d = Math.min(tokens, width);
  return d / (d + 256);
}
