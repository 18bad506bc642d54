/**
 * NVIDIA GPU families by CUDA compute capability (a catalog GPU's `computeCapability` as a number; 0 off NVIDIA):
 * the 9.x family is Hopper (sm_90, sm_90a), the 10.x family datacenter Blackwell (B200/GB200 10.0, B300 10.3), whose
 * kernels (tcgen05, TensorRT-LLM-gen) consumer Blackwell (12.x) does not run. CUDA C++ Programming Guide, "Compute
 * Capabilities" (https://docs.nvidia.com/cuda/cuda-c-programming-guide/#compute-capabilities).
 */

/** Compute capability 8.9: Ada Lovelace (L4, L40S, RTX 40xx, RTX 6000 Ada), the first with FP8 tensor cores. */
export const isAda = (cc: number): boolean => cc === 8.9;

/** Compute capability 9.x: Hopper. */
export const isHopper = (cc: number): boolean => cc >= 9 && cc < 10;

/** Compute capability 10.x: datacenter Blackwell (SM100 family). */
export const isSm100 = (cc: number): boolean => cc >= 10 && cc < 11;
