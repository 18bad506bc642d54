import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { onEngine } from '../../src/core/engines/index.js';
import { mapTorchtitan, parseTorchtitanRecipe } from '../../src/core/engines/torchtitan/from.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

// torchtitan compiles the model when compile.components lists "model" (models/*/parallelize.py) and the loss when it
// lists "loss" (components/loss.py BaseLoss._maybe_compile), default both (config/configs.py CompileConfig).
const read = (lines: string[]) =>
  mapTorchtitan(
    parseTorchtitanRecipe(
      [
        'HF_MODEL = "meta-llama/Llama-3.1-8B"',
        'def torchtitan_vramplan():',
        '    config = llama3_8b()',
        '    config.parallelism.data_parallel_shard_degree = 8',
        '    config.loss = config.loss.loss_fn',
        ...lines.map((l) => `    ${l}`),
      ].join('\n'),
    ),
  );

describe('torchtitan --from compile.components', () => {
  it('model and loss (the default list): --compile, no build', () => {
    for (const m of [
      read(['config.compile.enable = True']),
      read(['config.compile.enable = True', 'config.compile.components = ["model", "loss"]']),
    ]) {
      expect(m.flags.compile).toBe(true);
      expect(m.build).toBeUndefined();
    }
  });

  it('loss alone: the model uncompiled, the loss compiled alone', () => {
    for (const m of [
      read(['config.compile.enable = True', 'config.compile.components = ["loss"]']),
      // The shape torchtitan's deepseek_v3 configs write (config_registry.py).
      read(['config.compile = CompileConfig(enable=True, components=["loss"])']),
    ]) {
      expect(m.flags.compile).toBeUndefined();
      expect(m.build).toEqual({ lossCompiledAlone: true });
    }
  });

  it('model alone: --compile with the loss eager', () => {
    const m = read(['config.compile.enable = True', "config.compile.components = ['model']"]);
    expect(m.flags.compile).toBe(true);
    expect(m.build).toEqual({ eagerLoss: true });
  });

  it('enable off or an empty list: uncompiled; an unknown component warns', () => {
    expect(read(['config.compile.components = ["loss"]']).flags.compile).toBeUndefined();
    const empty = read(['config.compile.enable = True', 'config.compile.components = []']);
    expect(empty.flags.compile).toBeUndefined();
    expect(empty.build).toBeUndefined();
    const odd = read([
      'config.compile.enable = True',
      'config.compile.components = ["model", "loss", "mtp"]',
    ]);
    expect(odd.flags.compile).toBe(true);
    expect(odd.warnings.join('\n')).toMatch(/"mtp": not a component the estimate models/);
  });

  it('the loss-only build keeps no fp32 logits tensor where the uncompiled one does', () => {
    const m = read(['config.compile.enable = True', 'config.compile.components = ["loss"]']);
    const arch = resolveModel('llama-3.1-8b');
    const o = onEngine(
      optionsFromFlags({ ...m.flags, seq: 4096, batch: 1, 'chunked-loss': false }),
      'torchtitan',
    );
    const gpu = findGpu('h100-sxm');
    const logits = (b?: typeof m.build) =>
      buildEstimate(arch, o, gpu, undefined, b).phases.find((p) => p.phase === 'forward')!.parts
        .logits;
    const [alone, eager] = [logits(m.build), logits()];
    // The eager loss holds the fp32 upcast of the logits; the compiled one fuses it away.
    expect(alone).toBeLessThan(eager);
  });
});
