// Unsloth's tiled MLP (from_pretrained unsloth_tiled_mlp=True, unsloth_zoo tiled_mlp.py): the tile split,
// its memory and time by mechanism, the published contexts it reaches, the flag's refusals and the
// launcher / --from round trip.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { runExplain } from '../../src/commands/explain-run.js';
import { runPlanFrom } from '../../src/commands/plan-from.js';
import { calibrationRows } from '../../src/commands/validate-run.js';
import { emitUnsloth } from '../../src/core/engines/unsloth/launch.js';
import { mapUnsloth } from '../../src/core/engines/unsloth/from.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { engineRejects } from '../../src/core/engines/engines.js';
import { explainFit, plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { mlpTileTokens } from '../../src/core/memory/activations.js';
import { estimateMemory, longestFittingSeq } from '../../src/core/memory/index.js';
import { UNCERTAINTY } from '../../src/core/memory/uncertainty.js';
import { estimateTime } from '../../src/core/time/index.js';
import { GiB } from '../../src/core/units.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { caseArch, loadMaxContextCases } from '../../src/io/load-calibration.js';
import { resolveModel } from '../../src/io/load-model.js';
import { upstreamKeys } from '../../src/io/load-upstream-keys.js';
import { FlagError, optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { launchInputOf } from '../helpers/launch.js';

// Unsloth's 500K notebook settings (unslothai/notebooks nb/gpt_oss_(20B)_500K_Context_Fine_tuning.ipynb):
// r=8 (landing on q/k/v/o), batch 1, adamw_8bit, offloaded checkpointing.
const GPT_OSS = {
  method: 'qlora',
  'double-quant': true,
  'lora-rank': 8,
  'lora-targets': 'q,k,v,o',
  batch: 1,
  optimizer: 'adamw-8bit',
  framework: 'unsloth',
  checkpointing: 'offload',
};
const gptOss = caseArch({
  ...loadMaxContextCases().find((c) => c.id === 'unsloth-ctx-gptoss20b-80gb')!,
});

describe('mlpTileTokens (unsloth_zoo tiled_forward_arctic_size + TiledMLP.forward split)', () => {
  it('one tile of every token when the sequence is shorter than the hidden size', () => {
    expect(mlpTileTokens(4096, 1, 1000)).toBe(1000);
    expect(mlpTileTokens(4096, 2, 1000)).toBe(2000);
  });
  it('tiles of hidden-size tokens, the remainder as one more tile', () => {
    // floor(10000 / 4096) = 2 tiles of 4096, then 1808: the largest is 4096.
    expect(mlpTileTokens(4096, 1, 10000)).toBe(4096);
    // n_shards comes from seq, not batch x seq: 2 x 8192 tokens in 2 tiles of 4096 and one of 8192.
    expect(mlpTileTokens(4096, 2, 8192)).toBe(8192);
    // batch 3 x seq 3000 (< hidden): one tile of 4096, the remaining 4904 as the last.
    expect(mlpTileTokens(4096, 3, 3000)).toBe(4904);
  });
});

describe('tiled MLP memory', () => {
  const arch = resolveModel('llama-3.1-8b');
  const o = (seq: number, tiled: boolean) =>
    optionsFromFlags({
      method: 'qlora',
      'lora-rank': 32,
      'lora-targets': 'q,k,v,o,gate,up,down',
      optimizer: 'adamw-8bit',
      framework: 'unsloth',
      checkpointing: 'offload',
      seq,
      ...(tiled ? { 'tiled-mlp': true } : {}),
    });

  it('keeps no ffn-wide tensor per token: the saving grows with the sequence', () => {
    const saved = (seq: number) =>
      estimateMemory(arch, o(seq, false)).perGpu.allocatedBytes -
      estimateMemory(arch, o(seq, true)).perGpu.allocatedBytes;
    expect(saved(65536)).toBeGreaterThan(0);
    // Past one tile, twice the tokens save more than twice as much minus the fixed tile.
    expect(saved(262144)).toBeGreaterThan(1.9 * saved(131072));
  });

  it('at 342K tokens, LoRA_MLP e and g and the DW gradient are gone from the layer peak', () => {
    const seq = 342000;
    const untiled = estimateMemory(arch, o(seq, false)).perGpu.breakdown;
    const tiled = estimateMemory(arch, o(seq, true)).perGpu.breakdown;
    const c = 2;
    // e and g (2 ffn-wide, LoRA_MLP save_for_backward) leave the recomputed layer; the in-place backward's DW
    // (one ffn-wide) leaves the working set, which gains the whole-sequence input gradient (zeros_like(x)).
    const ffnPerToken = arch.groups[0]!.ffn * c;
    const hPerToken = arch.hidden * c;
    expect(untiled.activations - tiled.activations).toBeCloseTo(2 * ffnPerToken * seq, -6);
    // The tile (4096 tokens) holds LoRA_MLP's e, g and DW for its tokens only.
    const tile = 4096 * 3 * ffnPerToken;
    expect(untiled.buffers - tiled.buffers).toBeCloseTo((ffnPerToken - hPerToken) * seq - tile, -6);
  });

  it('is smaller than untiled at long context, where the layer backward is the peak', () => {
    for (const seq of [32768, 131072, 500000]) {
      const a = estimateMemory(arch, o(seq, false)).perGpu.deviceBytes;
      const b = estimateMemory(arch, o(seq, true)).perGpu.deviceBytes;
      expect(b).toBeLessThan(a);
    }
  });
});

describe('published long contexts with tiled MLP', () => {
  it("docs.unsloth.ai '500K+ with Tiled MLP enabled': gpt-oss-20b QLoRA fits 500K tokens on 80 GB, not untiled", () => {
    const tiled = optionsFromFlags({ ...GPT_OSS, seq: 500_000, 'tiled-mlp': true });
    const untiled = optionsFromFlags({ ...GPT_OSS, seq: 500_000 });
    expect(estimateMemory(gptOss, tiled).perGpu.deviceBytes).toBeLessThanOrEqual(80 * GiB);
    expect(estimateMemory(gptOss, untiled).perGpu.deviceBytes).toBeGreaterThan(80 * GiB);
  });

  it("docs.unsloth.ai 'You can reach >750K context windows on a B200 192GB GPU'", () => {
    const o = optionsFromFlags({ ...GPT_OSS, 'tiled-mlp': true });
    expect(longestFittingSeq(gptOss, o, 192 * GiB)).toBeGreaterThan(750_000);
  });

  it('the 500K notebook run (486,607 tokens, peak reserved 70.451 GiB) is within the band', () => {
    const r = calibrationRows('cases.json').find((x) => x.id === 'unsloth-gptoss-500k')!;
    expect(r).toBeDefined();
    expect(r.error).toBeGreaterThan(-UNCERTAINTY.maxUnderError);
    expect(r.error).toBeLessThan(UNCERTAINTY.p90AbsError);
  });
});

describe('tiled MLP time', () => {
  it('adds one MLP forward per step (TiledMLP.backward recomputes each tile)', () => {
    const gpu = findGpu('h100-sxm');
    const t = defaultTimeOptions(1);
    const arch = resolveModel('llama-3.1-8b');
    const base = optionsFromFlags({ ...GPT_OSS, 'lora-targets': 'all-linear', seq: 65536 });
    const a = estimateTime(arch, base, gpu, t).stepSeconds;
    const b = estimateTime(arch, { ...base, tiledMlp: true }, gpu, t).stepSeconds;
    expect(b).toBeGreaterThan(a);
    // One MLP forward: 2 x tokens x 32 layers x 3 x 4096 x 14336 FLOPs, well under a tenth of the step.
    expect(b - a).toBeLessThan(0.1 * a);
  });
});

describe('--tiled-mlp', () => {
  it('is refused off Unsloth with one line naming the flag and the engine that has it', () => {
    for (const framework of ['hf', 'torchtune', 'litgpt']) {
      let err: unknown;
      try {
        optionsFromFlags({ method: 'qlora', framework, 'tiled-mlp': true });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FlagError);
      const m = (err as Error).message;
      expect(m).toContain('--tiled-mlp');
      expect(m).toContain('unsloth');
      expect(m).not.toContain('\n');
    }
    expect(() =>
      optionsFromFlags({ method: 'inference', framework: 'unsloth', 'tiled-mlp': true }),
    ).toThrow(/--tiled-mlp/);
  });

  it('rules out engines without it in the search', () => {
    const o = optionsFromFlags({ method: 'qlora', framework: 'unsloth', 'tiled-mlp': true });
    expect(engineRejects('hf-trainer', o, 1, 1)).toBe('no tiled MLP');
    expect(engineRejects('unsloth', o, 1, 1)).toBeNull();
  });

  it('is written into from_pretrained as unsloth_tiled_mlp=True and read back by --from', () => {
    const flags = { framework: 'unsloth', method: 'qlora', seq: 262144, checkpointing: 'offload' };
    const out = (tiled: boolean) => {
      const r = emitUnsloth(
        launchInputOf('llama-3.1-8b', 'h100-sxm', {
          ...flags,
          ...(tiled ? { 'tiled-mlp': true } : {}),
        }),
      );
      if (!r.ok) throw new Error(r.reason);
      return JSON.parse(r.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
        from_pretrained: Record<string, unknown>;
      };
    };
    const on = out(true);
    expect(on.from_pretrained.unsloth_tiled_mlp).toBe(true);
    expect('unsloth_tiled_mlp' in out(false).from_pretrained).toBe(false);
    const back = mapUnsloth(on as unknown as Record<string, unknown>, undefined, upstreamKeys);
    expect(back.flags['tiled-mlp']).toBe(true);
    expect(optionsFromFlags(back.flags).tiledMlp).toBe(true);
    expect(
      mapUnsloth(out(false) as unknown as Record<string, unknown>, undefined, upstreamKeys).flags[
        'tiled-mlp'
      ],
    ).toBe(undefined);
  });
});

describe('explain offers tiled MLP where the engine loads it', () => {
  const arch = resolveModel('llama-3.1-8b');
  const gpu = findGpu('h100-sxm');
  // As `vramplan explain` runs it: the engine's defaults applied (unsloth: offloaded checkpointing), on q,v
  // (the recipes' all-linear takes Unsloth's fused LoRA MLP path, which fits 342K without tiles).
  const over = (framework: string) => {
    const flags = { method: 'qlora', framework, seq: 342000, 'lora-targets': 'q,v' };
    return explainFit(arch, withEngineDefaults(optionsFromFlags(flags), flags), gpu);
  };
  const tiledFix = (e: ReturnType<typeof explainFit>) =>
    e.fixes.find((f) => f.changes.some((c) => c.axis === 'tiledMlp'));

  it('on unsloth at 342K tokens, alone, and it fits when re-estimated', () => {
    const e = over('unsloth');
    expect(e.fits).toBe(false);
    const f = tiledFix(e);
    expect(f).toBeDefined();
    expect(f!.changes).toHaveLength(1);
    expect(f!.options.tiledMlp).toBe(true);
    expect(estimateMemory(arch, f!.options).perGpu.deviceBytes).toBeLessThan(
      gpu.memoryMiB * 2 ** 20,
    );
  });

  it('never on an engine without it', () => {
    const e = over('hf');
    expect(e.fixes.length).toBeGreaterThan(0);
    expect(tiledFix(e)).toBeUndefined();
  });
});

describe('past the config positions on an engine that scales RoPE itself (explain, plan --from)', () => {
  const quiet = () => vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

  it('explain --framework unsloth --seq 342000 explains; --framework hf refuses in one line', () => {
    const out = quiet();
    try {
      const flags = {
        method: 'qlora',
        framework: 'unsloth',
        seq: 342000,
        gpu: 'h100-sxm',
        'lora-targets': 'q,v',
      };
      expect(runExplain('llama-3.1-8b', flags, true)).toBe(0);
      const e = JSON.parse(String(out.mock.calls.at(-1)![0])) as { fits: boolean };
      expect(e.fits).toBe(false);
    } finally {
      out.mockRestore();
    }
    expect(() =>
      runExplain(
        'llama-3.1-8b',
        { method: 'qlora', framework: 'hf', seq: 342000, gpu: 'h100-sxm' },
        true,
      ),
    ).toThrow(/--seq: got 342000; expected at most 131072/);
  });

  it('plan --from an unsloth-args.json with unsloth_tiled_mlp at 342K tokens fits an H100', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-tiled-'));
    const r = emitUnsloth(
      launchInputOf('llama-3.1-8b', 'h100-sxm', {
        framework: 'unsloth',
        method: 'qlora',
        seq: 342000,
        'tiled-mlp': true,
      }),
    );
    if (!r.ok) throw new Error(r.reason);
    for (const f of r.files) writeFileSync(join(dir, f.path), f.content);
    const out = quiet();
    try {
      const rc = await runPlanFrom(dir, undefined, { gpu: 'h100-sxm', json: true });
      expect(rc).toBe(0);
      const e = JSON.parse(String(out.mock.calls.at(-1)![0])) as {
        fits: boolean;
        options: { seq: number; tiledMlp?: boolean };
      };
      expect(e.options.seq).toBe(342000);
      expect(e.options.tiledMlp).toBe(true);
      expect(e.fits).toBe(true);
    } finally {
      out.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('plan past the config positions', () => {
  const scenario = (seq: number, engines?: string[]) =>
    scenarioSchema.parse({
      name: 'long',
      model: 'llama-3.1-8b',
      job: { kind: 'fine-tune', methods: ['lora', 'qlora'], seq, globalBatch: 1 },
      hardware: { owned: [{ gpu: 'h100-sxm', count: 1 }], counts: { min: 1, max: 1 } },
      ...(engines ? { search: { engines } } : {}),
    });

  it('342K tokens on one H100: planned on the engine that scales RoPE, with tiled MLP', () => {
    const r = plan({ ...planInputOf('long.yaml', scenario(342000)), top: 3 });
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) {
      expect(p.choices.engine).toBe('unsloth');
      expect(p.options.tiledMlp).toBe(true);
    }
  });

  it('refused in one line when no searched engine scales RoPE itself', () => {
    expect(() => planInputOf('long.yaml', scenario(342000, ['hf-trainer']))).toThrow(
      /job\.seq: got 342000; expected at most 131072/,
    );
  });

  it('no tiled-MLP variant while the sequence fits in one tile (no saving, only the recompute)', () => {
    const r = plan({ ...planInputOf('long.yaml', scenario(4096, ['unsloth'])), top: 50 });
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(p.options.tiledMlp).toBeUndefined();
  });
});

describe('tiled MLP properties (dense and MoE models, LoRA and QLoRA)', () => {
  const models = [
    'llama-3.2-1b',
    'llama-3.1-8b',
    'mistral-7b-v0.3',
    'gemma-2-9b',
    'qwen2.5-1.5b',
    'gpt-oss-20b',
  ];
  const gpu = findGpu('h100-sxm');
  const t = defaultTimeOptions(1);
  const arb = fc.record({
    model: fc.constantFrom(...models),
    method: fc.constantFrom('lora', 'qlora'),
    targets: fc.constantFrom('q,v', 'all-linear'),
    tilesPerSeq: fc.integer({ min: 2, max: 200 }),
    checkpointing: fc.constantFrom('offload', 'full'),
  });
  type Case = typeof arb extends fc.Arbitrary<infer R> ? R : never;
  const pair = (x: Case) => {
    const arch = resolveModel(x.model);
    const flags = {
      method: x.method,
      framework: 'unsloth',
      'lora-targets': x.targets,
      checkpointing: x.checkpointing,
      seq: x.tilesPerSeq * arch.hidden,
    };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    return { arch, o, tiled: { ...o, tiledMlp: true } };
  };

  it('never more device memory once the sequence spans two tiles', () => {
    fc.assert(
      fc.property(arb, (x) => {
        const { arch, o, tiled } = pair(x);
        expect(estimateMemory(arch, tiled).perGpu.deviceBytes).toBeLessThanOrEqual(
          estimateMemory(arch, o).perGpu.deviceBytes,
        );
      }),
      { numRuns: 40 },
    );
  });

  it('never a faster step (the MLP forward runs again)', () => {
    fc.assert(
      fc.property(arb, (x) => {
        const { arch, o, tiled } = pair(x);
        expect(estimateTime(arch, tiled, gpu, t).stepSeconds).toBeGreaterThan(
          estimateTime(arch, o, gpu, t).stepSeconds,
        );
      }),
      { numRuns: 40 },
    );
  });
});
