// vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl, sha256 f3c5da29a286f493...: 22 files; the 0.10.0 wheel lists the same 22
const FROM_0_9_2: readonly string[] = [
  '128,384,AMD_Instinct_MI300X',
  '128,384,NVIDIA_H20',
  '128,384,NVIDIA_H20-3e',
  '128,384,NVIDIA_H200',
  '128,768,AMD_Instinct_MI300X',
  '128,768,NVIDIA_B200',
  '128,768,NVIDIA_H20',
  '128,768,NVIDIA_H20-3e',
  '128,768,NVIDIA_H200',
  '256,1024,AMD_Instinct_MI325_OAM',
  '256,128,NVIDIA_H100_80GB_HBM3',
  '256,128,NVIDIA_H20',
  '256,128,NVIDIA_L20Y',
  '256,256,AMD_Instinct_MI300X',
  '256,256,AMD_Instinct_MI325X',
  '256,256,AMD_Instinct_MI325_OAM',
  '256,256,NVIDIA_B200',
  '256,256,NVIDIA_H20',
  '256,256,NVIDIA_H20-3e',
  '256,256,NVIDIA_H200',
  '256,256,NVIDIA_L20',
  '256,512,AMD_Instinct_MI325_OAM',
];

// vllm-0.10.2-cp38-abi3-manylinux1_x86_64.whl, sha256 e0cba6110483d9bf...: 41 files; the 0.11.0 wheel lists the same 41
const FROM_0_10_2: readonly string[] = [
  '128,384,AMD_Instinct_MI300X',
  '128,384,NVIDIA_B200',
  '128,384,NVIDIA_GB200',
  '128,384,NVIDIA_H20',
  '128,384,NVIDIA_H20-3e',
  '128,384,NVIDIA_H200',
  '128,768,AMD_Instinct_MI300X',
  '128,768,NVIDIA_B200',
  '128,768,NVIDIA_GB200',
  '128,768,NVIDIA_H20',
  '128,768,NVIDIA_H20-3e',
  '128,768,NVIDIA_H200',
  '160,640,NVIDIA_B200',
  '160,640,NVIDIA_GB200',
  '160,640,NVIDIA_H100',
  '20,2560,NVIDIA_B200',
  '20,2560,NVIDIA_GB200',
  '20,2560,NVIDIA_H100',
  '20,2560,NVIDIA_H20-3e',
  '256,1024,AMD_Instinct_MI325_OAM',
  '256,128,NVIDIA_H100_80GB_HBM3',
  '256,128,NVIDIA_H20',
  '256,128,NVIDIA_L20Y',
  '256,256,AMD_Instinct_MI300X',
  '256,256,AMD_Instinct_MI325X',
  '256,256,AMD_Instinct_MI325_OAM',
  '256,256,NVIDIA_B200',
  '256,256,NVIDIA_H20',
  '256,256,NVIDIA_H20-3e',
  '256,256,NVIDIA_H200',
  '256,256,NVIDIA_L20',
  '256,512,AMD_Instinct_MI325_OAM',
  '384,128,NVIDIA_B200',
  '384,128,NVIDIA_GB200',
  '384,128,NVIDIA_H200',
  '384,256,NVIDIA_B200',
  '384,256,NVIDIA_GB200',
  '40,2560,NVIDIA_B200',
  '40,2560,NVIDIA_GB200',
  '40,2560,NVIDIA_H100',
  '8,2048,NVIDIA_H200',
];

/**
 * Block-FP8 fused-MoE config files (`fused_moe/configs/E=..,N=..,device_name=..,dtype=fp8_w8a8,block_shape=[128,128].json`)
 * each vLLM release ships, as `E,N,device_name` keys: listed from the PyPI wheels themselves (`pip download vllm==X
 * --no-deps`; the wheel's `vllm/model_executor/layers/fused_moe/configs/` entries named with
 * `dtype=fp8_w8a8,block_shape=[128,128]`; the sha256 of each wheel read is beside its list). The name is
 * `get_config_file_name` (vllm/model_executor/layers/fused_moe/fused_moe.py, alike in every release listed): E the
 * layer's local experts, N the down projection's input width on one rank (`try_get_optimal_moe_config`: `E, _, N =
 * w2_shape`), device_name `current_platform.get_device_name()` with spaces as underscores. A release not listed is
 * not looked up (engines/vllm/moe-tiles.ts).
 */
export const VLLM_BLOCK_FP8_MOE_CONFIGS: Readonly<Record<string, readonly string[]>> = {
  // vllm-0.9.1-cp38-abi3-manylinux1_x86_64.whl, sha256 28b99e8df39c7aae...: 19 files
  '0.9.1': [
    '128,384,AMD_Instinct_MI300X',
    '128,384,NVIDIA_H20',
    '128,384,NVIDIA_H200',
    '128,768,AMD_Instinct_MI300X',
    '128,768,NVIDIA_H20',
    '128,768,NVIDIA_H200',
    '256,1024,AMD_Instinct_MI325_OAM',
    '256,128,NVIDIA_H100_80GB_HBM3',
    '256,128,NVIDIA_H20',
    '256,128,NVIDIA_L20Y',
    '256,256,AMD_Instinct_MI300X',
    '256,256,AMD_Instinct_MI325X',
    '256,256,AMD_Instinct_MI325_OAM',
    '256,256,NVIDIA_B200',
    '256,256,NVIDIA_H20',
    '256,256,NVIDIA_H20-3e',
    '256,256,NVIDIA_H200',
    '256,256,NVIDIA_L20',
    '256,512,AMD_Instinct_MI325_OAM',
  ],
  // vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl, sha256 f3c5da29a286f493...: 22 files
  '0.9.2': FROM_0_9_2,
  // vllm-0.10.0-cp38-abi3-manylinux1_x86_64.whl, sha256 8ca37559d82b43b5...: 22 files
  '0.10.0': FROM_0_9_2,
  // vllm-0.10.2-cp38-abi3-manylinux1_x86_64.whl, sha256 e0cba6110483d9bf...: 41 files
  '0.10.2': FROM_0_10_2,
  // vllm-0.11.0-cp38-abi3-manylinux1_x86_64.whl, sha256 3861c75ff2b12e24...: 41 files, the same as 0.10.2's
  '0.11.0': FROM_0_10_2,
};
