/**
 * The wheels read, oldest first, with the sha256 of each (`vllm-X-cp38-abi3-manylinux1_x86_64.whl`): 15, 19, 22, 22,
 * 41 and 41 block-FP8 files. No file was removed between them, so each file is listed once, by the first wheel that
 * ships it.
 */
const WHEELS_READ = [
  ['0.8.5', '74bfe92953bee126...'],
  ['0.9.1', '28b99e8df39c7aae...'],
  ['0.9.2', 'f3c5da29a286f493...'],
  ['0.10.0', '8ca37559d82b43b5...'],
  ['0.10.2', 'e0cba6110483d9bf...'],
  ['0.11.0', '3861c75ff2b12e24...'],
] as const;

/** `E,N,device_name` -> the first wheel read that ships its block-FP8 config file. */
const FIRST_SHIPPED: Readonly<Record<string, (typeof WHEELS_READ)[number][0]>> = {
  // first in the vllm==0.8.5 wheel (15)
  '128,384,NVIDIA_H20': '0.8.5',
  '128,384,NVIDIA_H200': '0.8.5',
  '128,768,NVIDIA_H20': '0.8.5',
  '128,768,NVIDIA_H200': '0.8.5',
  '256,1024,AMD_Instinct_MI325_OAM': '0.8.5',
  '256,128,NVIDIA_H100_80GB_HBM3': '0.8.5',
  '256,128,NVIDIA_H20': '0.8.5',
  '256,128,NVIDIA_L20Y': '0.8.5',
  '256,256,AMD_Instinct_MI300X': '0.8.5',
  '256,256,AMD_Instinct_MI325X': '0.8.5',
  '256,256,AMD_Instinct_MI325_OAM': '0.8.5',
  '256,256,NVIDIA_B200': '0.8.5',
  '256,256,NVIDIA_H200': '0.8.5',
  '256,256,NVIDIA_L20': '0.8.5',
  '256,512,AMD_Instinct_MI325_OAM': '0.8.5',
  // first in the vllm==0.9.1 wheel (4 more: vllm-project/vllm#17530's and vllm-project/vllm#17535's MI300X files among them)
  '128,384,AMD_Instinct_MI300X': '0.9.1',
  '128,768,AMD_Instinct_MI300X': '0.9.1',
  '256,256,NVIDIA_H20': '0.9.1',
  '256,256,NVIDIA_H20-3e': '0.9.1',
  // first in the vllm==0.9.2 wheel (3)
  '128,384,NVIDIA_H20-3e': '0.9.2',
  '128,768,NVIDIA_B200': '0.9.2',
  '128,768,NVIDIA_H20-3e': '0.9.2',
  // first in the vllm==0.10.2 wheel (19)
  '128,384,NVIDIA_B200': '0.10.2',
  '128,384,NVIDIA_GB200': '0.10.2',
  '128,768,NVIDIA_GB200': '0.10.2',
  '160,640,NVIDIA_B200': '0.10.2',
  '160,640,NVIDIA_GB200': '0.10.2',
  '160,640,NVIDIA_H100': '0.10.2',
  '20,2560,NVIDIA_B200': '0.10.2',
  '20,2560,NVIDIA_GB200': '0.10.2',
  '20,2560,NVIDIA_H100': '0.10.2',
  '20,2560,NVIDIA_H20-3e': '0.10.2',
  '384,128,NVIDIA_B200': '0.10.2',
  '384,128,NVIDIA_GB200': '0.10.2',
  '384,128,NVIDIA_H200': '0.10.2',
  '384,256,NVIDIA_B200': '0.10.2',
  '384,256,NVIDIA_GB200': '0.10.2',
  '40,2560,NVIDIA_B200': '0.10.2',
  '40,2560,NVIDIA_GB200': '0.10.2',
  '40,2560,NVIDIA_H100': '0.10.2',
  '8,2048,NVIDIA_H200': '0.10.2',
};

/**
 * Block-FP8 fused-MoE config files (`fused_moe/configs/E=..,N=..,device_name=..,dtype=fp8_w8a8,block_shape=[128,128].json`)
 * each vLLM release ships, as `E,N,device_name` keys: listed from the PyPI wheels themselves (`pip download vllm==X
 * --no-deps`; the wheel's `vllm/model_executor/layers/fused_moe/configs/` entries named with
 * `dtype=fp8_w8a8,block_shape=[128,128]`; the sha256 of each wheel read is in WHEELS_READ). The name is
 * `get_config_file_name` (vllm/model_executor/layers/fused_moe/fused_moe.py, alike in every release listed): E the
 * layer's local experts, N the down projection's input width on one rank (`try_get_optimal_moe_config`: `E, _, N =
 * w2_shape`), device_name `current_platform.get_device_name()` with spaces as underscores. A release not listed is
 * not looked up (engines/vllm/moe-tiles.ts).
 */
export const VLLM_BLOCK_FP8_MOE_CONFIGS: Readonly<Record<string, readonly string[]>> =
  Object.fromEntries(
    WHEELS_READ.map(([release], i) => [
      release,
      Object.keys(FIRST_SHIPPED).filter(
        (k) => WHEELS_READ.findIndex(([r]) => r === FIRST_SHIPPED[k]) <= i,
      ),
    ]),
  );

/**
 * BLOCK_SIZE_M by M-bucket (engines/fused-moe-buckets.ts) of the block-FP8 files above on the catalog's cards
 * (DEVICE_NAME in engines/vllm/moe-tiles.ts), as the 0.9.1, 0.9.2, 0.10.0 and 0.10.2 wheels of WHEELS_READ ship them:
 * each file reads the same in every one of those wheels that ships it (cross-checked against the repository:
 * `E=128,N=768,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128,128].json` at vllm-project/vllm@e0055804 reads as
 * kept here). The 0.11.0 wheel's are not read (absent: not looked up at that release).
 */
export const VLLM_BLOCK_FP8_BLOCK_M: Readonly<Record<string, string>> = {
  '20,2560,NVIDIA_B200': '16 16 16 16 16 16 16 32 32 64 64 64 64 64 64 64 64 64',
  '40,2560,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 32 32 64 64 64 64 64 64 64',
  '128,384,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64',
  '128,768,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64',
  '160,640,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 16 16 16 32 64 64 64 64 64',
  '256,256,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 32 32',
  '384,128,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 16 16 16 16 32 32 64 64 32',
  '384,256,NVIDIA_B200': '16 16 16 16 16 16 16 16 16 16 16 16 16 32 32 64 64 64',
  '256,128,NVIDIA_H100_80GB_HBM3': '64 64 64 64 64 64 64 64 64 64 64 64 64 64 64 64 128 64',
  '128,384,NVIDIA_H20': '16 16 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64 64',
  '128,768,NVIDIA_H20': '16 16 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64 64',
  '256,128,NVIDIA_H20': '16 16 16 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64',
  '256,256,NVIDIA_H20': '64 64 64 64 64 64 64 64 64 64 64 64 64 64 64 64 64 64',
  '8,2048,NVIDIA_H200': '16 16 16 16 16 64 64 64 64 64 64 64 64 64 64 64 64 64 8192:64',
  '128,384,NVIDIA_H200': '16 16 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64 64',
  '128,768,NVIDIA_H200': '64 64 16 16 16 16 16 16 16 16 16 64 64 64 64 64 64 64',
  '256,256,NVIDIA_H200': '16 16 64 64 16 64 64 64 64 64 64 64 64 64 64 64 128 64',
  '384,128,NVIDIA_H200': '16 16 16 16 16 16 16 16 16 16 16 16 16 32 64 64 64 64',
};

/** The wheels whose block-FP8 files VLLM_BLOCK_FP8_BLOCK_M was read from. */
export const VLLM_BLOCK_M_RELEASES: readonly string[] = ['0.9.1', '0.9.2', '0.10.0', '0.10.2'];

/**
 * BLOCK_SIZE_N by M-bucket of the same files (the columns each row block of the launch grid spans, time/moe-grid.ts),
 * read from the same four wheels (sha256 checked against WHEELS_READ), as the 0.10.2 wheel ships them; every file
 * reads the same in each of those wheels that ships it but one (VLLM_BLOCK_FP8_BLOCK_N_BEFORE_0_10_2).
 */
export const VLLM_BLOCK_FP8_BLOCK_N: Readonly<Record<string, string>> = {
  '128,384,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '20,2560,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '40,2560,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '128,768,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '160,640,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '256,256,NVIDIA_B200': '64 128 256 256 128 128 256 256 256 128 128 128 256 256 256 256 256 256',
  '384,128,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 256 128 128 128 128 128',
  '384,256,NVIDIA_B200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '256,128,NVIDIA_H100_80GB_HBM3':
    '64 64 64 64 128 128 64 64 128 128 128 128 128 128 128 128 64 128',
  '128,384,NVIDIA_H20': '64 64 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '128,768,NVIDIA_H20': '64 64 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '256,128,NVIDIA_H20': '64 128 64 128 128 128 128 128 128 128 128 128 64 64 64 64 64 64',
  '256,256,NVIDIA_H20': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '8,2048,NVIDIA_H200':
    '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 8192:128',
  '128,384,NVIDIA_H200': '64 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '128,768,NVIDIA_H200': '64 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
  '256,256,NVIDIA_H200': '64 128 64 128 256 128 128 128 128 128 128 128 128 128 128 128 64 128',
  '384,128,NVIDIA_H200': '128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
};

/** Files whose BLOCK_SIZE_N differs in the 0.9.2 and 0.10.0 wheels (the 2-token bucket: 256). */
export const VLLM_BLOCK_FP8_BLOCK_N_BEFORE_0_10_2: Readonly<Record<string, string>> = {
  '128,768,NVIDIA_B200': '128 256 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128 128',
};
