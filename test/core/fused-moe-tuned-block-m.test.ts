// Where the engine ships a tuned fused_moe config file for the step's experts, its Triton fused_moe pads each expert's
// rows to that file's BLOCK_SIZE_M at the M-bucket nearest the step's tokens (engines/fused-moe-buckets.ts), not to the
// default tiles' (time/moe-default-tiles.ts tunedBlockM, time/moe-pad-rows.ts). The files' entries are kept as read in
// the engines' wheels (engines/sglang/fused-moe-block-m.ts, engines/vllm/fused-moe-configs.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { bucketBlockM, decodeBlockM } from '../../src/core/engines/fused-moe-buckets.js';
import {
  SGLANG_FUSED_MOE_DEVICES,
  sglangTuned16,
  sglangTunedTile,
} from '../../src/core/engines/sglang/fused-moe-configs.js';
import {
  VLLM_BLOCK_FP8_BLOCK_M,
  VLLM_BLOCK_FP8_MOE_CONFIGS,
} from '../../src/core/engines/vllm/fused-moe-configs.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { expectedPaddedRows } from '../../src/core/time/expert-balance.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { decodeTritonMoe, tritonPaddedFlops } from '../../src/core/time/moe-pad-rows.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { QWEN3_NEXT as NEXT, QWEN3_NEXT_SGLANG_TP8 as NEXT_SGLANG } from '../helpers/qwen3-next.js';

// sglang==0.5.23 triton_3_4_0/E=512,N=64,device_name=NVIDIA_H200.json (sgl-project/sglang@5d2c83e6): BLOCK_SIZE_M 16
// from 1 to 512 tokens, 32 at 1024, 64 at 1536 to 3072, 128 at 4096.
const QWEN3_NEXT_H200_TP8 = 'E=512,N=64,device_name=NVIDIA_H200';

describe("a tuned file's M-buckets", () => {
  it('takes the nearest bucket, the smaller on a tie (Python min over ascending keys)', () => {
    const kept = '16 16 16 16 16 16 16 16 16 16 16 16 16 32 64 64 64 128';
    expect(bucketBlockM(kept, 1)).toBe(16);
    expect(bucketBlockM(kept, 1024)).toBe(32);
    expect(bucketBlockM(kept, 1280)).toBe(32); // 256 from 1024 and from 1536
    expect(bucketBlockM(kept, 1281)).toBe(64);
    expect(bucketBlockM(kept, 100000)).toBe(128);
    expect(
      decodeBlockM('16 16 16 16 16 64 64 64 64 64 64 64 64 64 64 64 64 64 8192:64').at(-1),
    ).toEqual([8192, 64]);
    expect(bucketBlockM('1:16 4:32 8:64', 6)).toBe(32);
  });

  it("keeps SGLang's entries for every tuned 16-bit file it lists on the kept cards", () => {
    const names = new Set<string>();
    for (const [gpu, device] of Object.entries(SGLANG_FUSED_MOE_DEVICES)) {
      for (let e = 1; e <= 520; e++) {
        for (const n of [
          64, 80, 96, 128, 160, 192, 224, 232, 256, 320, 336, 352, 384, 448, 464, 512, 640, 672,
          704, 768, 896, 928, 1024, 1280, 1344, 1408, 1536, 1792, 1856, 2048, 2560, 2688, 3072,
          3584, 4096, 7168, 14336,
        ]) {
          if (sglangTuned16(undefined, e, n, gpu) !== true) continue;
          names.add(`E=${e},N=${n},device_name=${device}`);
          const m = sglangTunedTile(undefined, e, n, gpu, 64)?.m;
          expect(m, `E=${e},N=${n},${device}`).toBeDefined();
        }
      }
    }
    expect(names.size).toBeGreaterThan(100);
    expect(names.has(QWEN3_NEXT_H200_TP8)).toBe(true);
  });

  it('reads the H200 Qwen3-Next file at its buckets, and nothing where no file ships', () => {
    expect(
      [4, 512, 1024, 2048, 4096].map((t) => sglangTunedTile(undefined, 512, 64, 'h200-sxm', t)?.m),
    ).toEqual([16, 16, 32, 64, 128]);
    // No 16-bit file for the H800 in any wheel read; none for this shape on the A100.
    expect(sglangTunedTile(undefined, 512, 64, 'h800-sxm', 64)?.m).toBeUndefined();
    expect(sglangTuned16(undefined, 512, 64, 'h800-sxm')).toBe(false);
    expect(sglangTunedTile(undefined, 512, 64, 'a100-80gb-sxm', 64)?.m).toBeUndefined();
    // E=8,N=7168 on the H100 was retuned between the 0.4.6.post1 and 0.5.3 wheels: 32 -> 64 rows at 48 tokens.
    expect(sglangTunedTile('0.4.6.post1', 8, 7168, 'h100-sxm', 48)?.m).toBe(32);
    expect(sglangTunedTile('0.5.3', 8, 7168, 'h100-sxm', 48)?.m).toBe(64);
  });

  it('knows the A800 and H800 by the names the engines give them: no vLLM block-FP8 file for either', () => {
    const fp8 = FRAMEWORKS.vllm.fusedMoeTile16!.defaults!.blockFp8!;
    expect(fp8.tuned('0.10.2', 256, 128, 'h800-sxm')).toBe(false);
    expect(fp8.tuned('0.10.2', 256, 128, 'a800-80gb-sxm')).toBe(false);
    expect(fp8.tuned('0.10.2', 256, 128, 'h100-sxm')).toBe(true);
    expect(fp8.tuned('0.10.2', 256, 128, 'rtx-4090')).toBeUndefined();
    expect(SGLANG_FUSED_MOE_DEVICES['h800-sxm']).toBe('NVIDIA_H800');
  });

  it("keeps vLLM's block-FP8 entries only for files its 0.10.2 wheel lists", () => {
    for (const [name, kept] of Object.entries(VLLM_BLOCK_FP8_BLOCK_M)) {
      expect(VLLM_BLOCK_FP8_MOE_CONFIGS['0.10.2']).toContain(name);
      const keys = decodeBlockM(kept).map(([k]) => k);
      expect(keys).toEqual([...keys].sort((a, b) => a - b));
      for (const [, m] of decodeBlockM(kept)) expect([16, 32, 64, 128, 256]).toContain(m);
    }
  });
});

function nextStep(gpu: string, batch: number, t: Partial<TimeOptions> = {}) {
  const time = { ...defaultTimeOptions(8), ...t };
  const r = gpuRates(findGpu(gpu), time, true);
  return decodeTritonMoe(NEXT, { ...NEXT_SGLANG, batch }, time, r, { batch, q: null });
}

describe("the padded rows at a tuned file's BLOCK_SIZE_M", () => {
  it("pads SGLang's Qwen3-Next over TP 8 on H200s to the shipped file's blocks, the defaults elsewhere", () => {
    // Above E = 512 tokens the defaults take 64-row blocks; the H200 file takes 32 at 1024.
    const h200 = nextStep('h200-sxm', 1024);
    expect(h200?.tunedM).toBe(32);
    const withFile = tritonPaddedFlops(NEXT, FRAMEWORKS.sglang, { ...h200!, tp: 8 });
    const defaults = tritonPaddedFlops(NEXT, FRAMEWORKS.sglang, {
      ...h200!,
      tunedM: undefined,
      tp: 8,
    });
    // 1024 x 10 / 512 = 20 rows an expert: 32-row blocks pad 12 a hit expert, 64-row ones 44.
    const per = (tile: number) => expectedPaddedRows(1024, 10 / 512, tile) - 20;
    expect(withFile / defaults).toBeCloseTo(per(32) / per(64), 6);
    // The A100 has no file for the shape, and a run that added its own file is not read (its contents unknown).
    expect(nextStep('a100-80gb-sxm', 1024)?.tunedM).toBeUndefined();
    expect(nextStep('h200-sxm', 1024, { moeTunedConfig: true })?.tunedM).toBeUndefined();
  });

  it("pads vLLM 0.9.1's block-FP8 Qwen3-30B-A3B on an H200 to the shipped file's buckets (64, then 16 rows)", () => {
    // vllm-project/vllm#19455's row (E=128, N=768, block FP8), moved to an H200, whose 0.9.1 wheel ships the file.
    const c = loadThroughputCases('throughput.json').find(
      (x) => x.id === 'vllm19455-qwen3-30b-a3b-fp8-b200-sharegpt-n2000-c200-default',
    );
    expect(c).toBeDefined();
    const { options, time, arch } = caseInputs(c!);
    const m = modelFacts(arch);
    const t = { ...time, engineVersion: '0.9.1' };
    const r = gpuRates(findGpu('h200-sxm'), t, true);
    const at = (batch: number) =>
      decodeTritonMoe(m, { ...options, batch }, t, r, { batch, q: null })?.tunedM;
    expect([1, 8, 128].map(at)).toEqual([64, 16, 16]);
    // The 0.11.0 wheel's files are not read: the default tiles hold.
    expect(
      decodeTritonMoe(m, { ...options, batch: 8 }, { ...t, engineVersion: '0.11.0' }, r, {
        batch: 8,
        q: null,
      })?.tunedM,
    ).toBeUndefined();
  });

  it('pads no more than the default tiles where the bucket is narrower, no less where wider (property)', () => {
    const grid = FRAMEWORKS.sglang.fusedMoeTile16!.grid!;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8192 }), (batch) => {
        const s = nextStep('h200-sxm', batch)!;
        const tile = batch <= NEXT.experts ? grid.tiles.small16.m : grid.tiles.large16.m;
        expect(s.tunedM).toBeDefined();
        const tuned = tritonPaddedFlops(NEXT, FRAMEWORKS.sglang, { ...s, tp: 8 });
        const defaults = tritonPaddedFlops(NEXT, FRAMEWORKS.sglang, {
          ...s,
          tunedM: undefined,
          tp: 8,
        });
        if (s.tunedM! <= tile) expect(tuned).toBeLessThanOrEqual(defaults * (1 + 1e-12));
        if (s.tunedM! >= tile) expect(tuned).toBeGreaterThanOrEqual(defaults * (1 - 1e-12));
      }),
      { numRuns: 100 },
    );
  });
});
