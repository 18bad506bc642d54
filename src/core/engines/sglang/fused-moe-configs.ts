/**
 * The 16-bit fused_moe config files SGLang ships, by the first release read that ships each (a fixture read from
 * the PyPI wheels sglang==0.4.6.post1, 0.5.3, 0.5.4.post2, 0.5.8, 0.5.14 and 0.5.23: every
 * `configs/triton_<version>/E=..,N=..,device_name=...json` without a `dtype=` selector, under
 * layers/moe/fused_moe_triton/ up to 0.5.8 and layers/moe/moe_runner/triton_utils/ after; 0.4.6.post1 keeps them in
 * `configs/` itself). No file was removed between those wheels. Only the devices of the GPU catalog whose
 * `torch.cuda.get_device_name()` SGLang's own file names spell are kept (SGLANG_FUSED_MOE_DEVICES): those of these
 * files, and the H800, named only by block-FP8 files (sglang==0.5.23 `triton_3_4_0/E=512,N=128,device_name=NVIDIA_H800,
 * dtype=fp8_w8a8,block_shape=[128, 128].json`), so no 16-bit file is tuned for it.
 *
 * The lookup (fused_moe_triton_config.py `get_moe_configs`, all six wheels): the file named for the step's E, N (the
 * expert's width on the GPU), device and dtype in `configs/triton_<installed Triton>/`; else the same name in any
 * other `triton_<version>` folder the wheel ships (0.5.3: the list "3.4.0", "3.3.1", "3.2.0", "3.1.0"; 0.5.14 and later:
 * every folder on disk, newest first); else `get_default_config`. So a name shipped in any folder is a tuned file.
 */
import { releaseAtLeast } from '../../compare-releases.js';
import type { FusedMoeDefaultTiles, TunedFileTile } from '../../time/moe-grid-types.js';
import { sglangBlockMOf } from './fused-moe-block-m.js';
import { sglangBlockNOf, sglangDownFileShipped } from './fused-moe-block-n.js';

/** The wheels read, oldest first; a release between two takes the next wheel's list (files only accumulate). */
const WHEELS_READ = ['0.4.6.post1', '0.5.3', '0.5.4.post2', '0.5.8', '0.5.14', '0.5.23'] as const;
const NEWEST_READ = '0.5.23';

/** GPU catalog id -> `get_device_name().replace(" ", "_")`, as SGLang's own file names spell it. */
export const SGLANG_FUSED_MOE_DEVICES: Readonly<Record<string, string>> = {
  'h100-sxm': 'NVIDIA_H100_80GB_HBM3',
  'h200-sxm': 'NVIDIA_H200',
  'a100-80gb-sxm': 'NVIDIA_A100-SXM4-80GB',
  'a100-40gb-sxm': 'NVIDIA_A100-SXM4-40GB',
  'a800-80gb-sxm': 'NVIDIA_A800-SXM4-80GB',
  'h800-sxm': 'NVIDIA_H800',
  b200: 'NVIDIA_B200',
  h20: 'NVIDIA_H20',
  l40s: 'NVIDIA_L40S',
};

/** `E=..,N=..,device_name=..` -> the first wheel read that ships it (16-bit experts: no dtype selector). */
const TUNED_16BIT: Readonly<Record<string, string>> = {
  // first in the sglang==0.4.6.post1 wheel's configs (63)
  'E=8,N=1792,device_name=NVIDIA_A100-SXM4-40GB': '0.4.6.post1',
  'E=8,N=3584,device_name=NVIDIA_A100-SXM4-40GB': '0.4.6.post1',
  'E=16,N=1344,device_name=NVIDIA_A100-SXM4-40GB': '0.4.6.post1',
  'E=1,N=1792,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=1,N=3584,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=1,N=7168,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=1,N=14336,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=8,N=1792,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=8,N=2048,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=8,N=3584,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=8,N=4096,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=8,N=7168,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=16,N=1344,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=16,N=1792,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=16,N=2688,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=16,N=3584,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=16,N=7168,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=16,N=14336,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=64,N=640,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=64,N=1280,device_name=NVIDIA_A100-SXM4-80GB': '0.4.6.post1',
  'E=64,N=640,device_name=NVIDIA_A800-SXM4-80GB': '0.4.6.post1',
  'E=64,N=1280,device_name=NVIDIA_A800-SXM4-80GB': '0.4.6.post1',
  'E=160,N=192,device_name=NVIDIA_A800-SXM4-80GB': '0.4.6.post1',
  'E=256,N=64,device_name=NVIDIA_A800-SXM4-80GB': '0.4.6.post1',
  'E=272,N=64,device_name=NVIDIA_A800-SXM4-80GB': '0.4.6.post1',
  'E=288,N=64,device_name=NVIDIA_A800-SXM4-80GB': '0.4.6.post1',
  'E=1,N=3072,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=8,N=1792,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=8,N=2048,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=8,N=3584,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=8,N=4096,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=8,N=7168,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=16,N=1024,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=16,N=1344,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=16,N=2048,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=16,N=2688,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=20,N=2048,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=24,N=1024,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=64,N=320,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=64,N=640,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=64,N=1280,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=128,N=192,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=128,N=512,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=144,N=512,device_name=NVIDIA_H100_80GB_HBM3': '0.4.6.post1',
  'E=128,N=96,device_name=NVIDIA_H20': '0.4.6.post1',
  'E=128,N=192,device_name=NVIDIA_H20': '0.4.6.post1',
  'E=128,N=384,device_name=NVIDIA_H20': '0.4.6.post1',
  'E=128,N=768,device_name=NVIDIA_H20': '0.4.6.post1',
  'E=8,N=1792,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=8,N=2048,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=8,N=3584,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=8,N=4096,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=8,N=7168,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=8,N=14336,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=16,N=1024,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=64,N=320,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=64,N=640,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=64,N=1280,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=64,N=2560,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=128,N=192,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=128,N=384,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=128,N=768,device_name=NVIDIA_H200': '0.4.6.post1',
  'E=8,N=3584,device_name=NVIDIA_L40S': '0.4.6.post1',
  // first in the sglang==0.5.3 wheel's configs (13)
  'E=257,N=64,device_name=NVIDIA_A100-SXM4-80GB': '0.5.3',
  'E=128,N=192,device_name=NVIDIA_A800-SXM4-80GB': '0.5.3',
  'E=128,N=768,device_name=NVIDIA_A800-SXM4-80GB': '0.5.3',
  'E=16,N=1024,device_name=NVIDIA_B200': '0.5.3',
  'E=512,N=256,device_name=NVIDIA_B200': '0.5.3',
  'E=128,N=384,device_name=NVIDIA_H100_80GB_HBM3': '0.5.3',
  'E=128,N=768,device_name=NVIDIA_H100_80GB_HBM3': '0.5.3',
  'E=512,N=64,device_name=NVIDIA_H100_80GB_HBM3': '0.5.3',
  'E=512,N=128,device_name=NVIDIA_H100_80GB_HBM3': '0.5.3',
  'E=256,N=512,device_name=NVIDIA_H20': '0.5.3',
  'E=512,N=64,device_name=NVIDIA_H200': '0.5.3',
  'E=512,N=128,device_name=NVIDIA_H200': '0.5.3',
  'E=512,N=256,device_name=NVIDIA_H200': '0.5.3',
  // first in the sglang==0.5.4.post2 wheel's configs (1)
  'E=256,N=256,device_name=NVIDIA_B200': '0.5.4.post2',
  // first in the sglang==0.5.8 wheel's configs (45)
  'E=16,N=1856,device_name=NVIDIA_B200': '0.5.8',
  'E=32,N=928,device_name=NVIDIA_B200': '0.5.8',
  'E=32,N=1856,device_name=NVIDIA_B200': '0.5.8',
  'E=64,N=464,device_name=NVIDIA_B200': '0.5.8',
  'E=64,N=928,device_name=NVIDIA_B200': '0.5.8',
  'E=64,N=1856,device_name=NVIDIA_B200': '0.5.8',
  'E=64,N=2688,device_name=NVIDIA_B200': '0.5.8',
  'E=128,N=232,device_name=NVIDIA_B200': '0.5.8',
  'E=128,N=464,device_name=NVIDIA_B200': '0.5.8',
  'E=128,N=928,device_name=NVIDIA_B200': '0.5.8',
  'E=128,N=1344,device_name=NVIDIA_B200': '0.5.8',
  'E=128,N=1856,device_name=NVIDIA_B200': '0.5.8',
  'E=128,N=2688,device_name=NVIDIA_B200': '0.5.8',
  'E=256,N=512,device_name=NVIDIA_B200': '0.5.8',
  'E=256,N=672,device_name=NVIDIA_B200': '0.5.8',
  'E=256,N=1344,device_name=NVIDIA_B200': '0.5.8',
  'E=256,N=2688,device_name=NVIDIA_B200': '0.5.8',
  'E=512,N=336,device_name=NVIDIA_B200': '0.5.8',
  'E=512,N=672,device_name=NVIDIA_B200': '0.5.8',
  'E=512,N=1344,device_name=NVIDIA_B200': '0.5.8',
  'E=512,N=2688,device_name=NVIDIA_B200': '0.5.8',
  'E=16,N=1856,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=32,N=928,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=32,N=1856,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=64,N=464,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=64,N=928,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=64,N=1856,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=64,N=2688,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=128,N=232,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=128,N=464,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=128,N=928,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=128,N=1344,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=128,N=1856,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=128,N=2688,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=256,N=672,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=256,N=1344,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=256,N=2688,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=512,N=336,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=512,N=672,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=512,N=1344,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=512,N=2688,device_name=NVIDIA_H100_80GB_HBM3': '0.5.8',
  'E=20,N=1536,device_name=NVIDIA_H200': '0.5.8',
  'E=161,N=192,device_name=NVIDIA_H200': '0.5.8',
  'E=128,N=928,device_name=NVIDIA_L40S': '0.5.8',
  'E=128,N=1856,device_name=NVIDIA_L40S': '0.5.8',
  // first in the sglang==0.5.14 wheel's configs (26)
  'E=16,N=2048,device_name=NVIDIA_B200': '0.5.14',
  'E=32,N=224,device_name=NVIDIA_B200': '0.5.14',
  'E=32,N=448,device_name=NVIDIA_B200': '0.5.14',
  'E=32,N=896,device_name=NVIDIA_B200': '0.5.14',
  'E=32,N=1792,device_name=NVIDIA_B200': '0.5.14',
  'E=64,N=192,device_name=NVIDIA_B200': '0.5.14',
  'E=64,N=384,device_name=NVIDIA_B200': '0.5.14',
  'E=64,N=768,device_name=NVIDIA_B200': '0.5.14',
  'E=64,N=1536,device_name=NVIDIA_B200': '0.5.14',
  'E=128,N=352,device_name=NVIDIA_B200': '0.5.14',
  'E=128,N=704,device_name=NVIDIA_B200': '0.5.14',
  'E=512,N=128,device_name=NVIDIA_B200': '0.5.14',
  'E=32,N=224,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=32,N=448,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=32,N=896,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=32,N=1792,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=64,N=192,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=64,N=384,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=64,N=768,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=64,N=1536,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=65,N=1536,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=128,N=352,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=128,N=704,device_name=NVIDIA_H100_80GB_HBM3': '0.5.14',
  'E=192,N=192,device_name=NVIDIA_H20': '0.5.14',
  'E=128,N=704,device_name=NVIDIA_H200': '0.5.14',
  'E=129,N=384,device_name=NVIDIA_H200': '0.5.14',
  // first in the sglang==0.5.23 wheel's configs (8)
  'E=16,N=1408,device_name=NVIDIA_H100_80GB_HBM3': '0.5.23',
  'E=32,N=768,device_name=NVIDIA_H100_80GB_HBM3': '0.5.23',
  'E=16,N=4096,device_name=NVIDIA_H200': '0.5.23',
  'E=32,N=4096,device_name=NVIDIA_H200': '0.5.23',
  'E=256,N=512,device_name=NVIDIA_H200': '0.5.23',
  'E=512,N=80,device_name=NVIDIA_H200': '0.5.23',
  'E=512,N=160,device_name=NVIDIA_H200': '0.5.23',
  'E=512,N=320,device_name=NVIDIA_H200': '0.5.23',
};

/**
 * Whether SGLang release `version` (none: the newest read) ships a tuned 16-bit fused_moe file for E experts of
 * width N on the GPU `gpu`; undefined where the card is not in SGLANG_FUSED_MOE_DEVICES or the release is before the
 * oldest wheel read (SGLang before 0.3 ran vLLM's FusedMoE and its files), so unknown.
 */
export function sglangTuned16(
  version: string | undefined,
  experts: number,
  n: number,
  gpu: string,
): boolean | undefined {
  const device = SGLANG_FUSED_MOE_DEVICES[gpu];
  if (device === undefined) return undefined;
  if (version !== undefined && !releaseAtLeast(version, '0.4.6')) return undefined;
  const wheel =
    version === undefined
      ? NEWEST_READ
      : (WHEELS_READ.find((w) => releaseAtLeast(w, version)) ?? NEWEST_READ);
  const first = TUNED_16BIT[`E=${experts},N=${n},device_name=${device}`];
  return first !== undefined && releaseAtLeast(wheel, first);
}

/**
 * BLOCK_SIZE_M and BLOCK_SIZE_N of the tuned 16-bit file SGLang release `version` (none: the newest read) reads for E
 * experts of width N on `gpu` at `tokens` token rows (engines/sglang/fused-moe-block-m.ts, fused-moe-block-n.ts);
 * undefined where no tuned file applies or its BLOCK_SIZE_M is not kept, `n` undefined where its BLOCK_SIZE_N is not
 * kept or the release ships a `_down.json` file for w2 (sglangDownFileShipped).
 */
export function sglangTunedTile(
  version: string | undefined,
  experts: number,
  n: number,
  gpu: string,
  tokens: number,
): TunedFileTile | undefined {
  if (sglangTuned16(version, experts, n, gpu) !== true) return undefined;
  const name = `E=${experts},N=${n},device_name=${SGLANG_FUSED_MOE_DEVICES[gpu]}`;
  const m = sglangBlockMOf(version, name, tokens);
  if (m === undefined) return undefined;
  // The w2 GEMM runs a `_down.json` file's tiles where one ships (not kept): not given.
  const down = sglangDownFileShipped(version, name);
  return { m, n: down ? undefined : sglangBlockNOf(version, name, tokens) };
}

/**
 * SGLang's default 16-bit fused_moe tiles against a tuned file. `get_default_config` (fused_moe_triton_config.py, the
 * same in all six wheels above) gives 16-bit experts BLOCK_SIZE_M 16 x N 32 x K 64 up to E tokens and 64 x 64 x 32
 * (GROUP_SIZE_M 8, Triton's default warps and stages) above. sgl-project/sglang#34150 times both against tuned files
 * for one BF16 shape (E=256, N=512, NVIDIA H200, Triton 3.7.1, the whole fused-MoE call with random top-k routing): at
 * M = 256 (not above E, the small tiles) 390.0 us against 386.9 us; at M = 512 (above E, the 64 x 64 tiles) 545.5 us
 * against 394.2 us, where the call reads every expert's weights both times: the default tiles keep 394.2 / 545.5 of
 * the tuned rate.
 */
export const SGLANG_LARGE_READ_SHARE = 394.2 / 545.5; // sgl-project/sglang#34150, M = 512: tuned / default

/** Above E tokens the default tiles' time over a tuned file's, 1 / SGLANG_LARGE_READ_SHARE; at or below E, none. */
function slowdown16(tokens: number, e: number): number {
  return tokens > e ? 1 / SGLANG_LARGE_READ_SHARE : 1;
}

/**
 * SGLang's default fused_moe tiles (FrameworkProfile.fusedMoeTile16.defaults; time/moe-default-tiles.ts): 16-bit
 * experts only, run through the Triton fused_moe where the step's runner says so. Under expert parallelism the per-rank
 * shapes are not read (absent localUnderEp: not priced).
 */
export const SGLANG_FUSED_MOE_DEFAULTS: FusedMoeDefaultTiles = {
  bits16: {
    tuned: sglangTuned16,
    slowdown: slowdown16,
    tile: sglangTunedTile,
  },
};
