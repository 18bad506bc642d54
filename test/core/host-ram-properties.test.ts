/**
 * Host RAM per node moves one way with what is offloaded and with the GPUs on the node: moving more onto the host
 * (none, then the optimizer, then the parameters too) never lowers it, and a node with more GPUs never needs less
 * for the same per-GPU host buffers (each rank's offloaded states, pinned buffers and checkpoint copies are its own).
 */
import { describe, expect, it } from 'vitest';
import { modelLoad } from '../helpers/host-ram.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/store.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { hostRamOf, hostRamOfOptions } from '../../src/core/memory/host-ram.js';
import { resolveModel } from '../../src/io/load-model.js';
import { ENGINES } from '../../src/schema/engine.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const MODES = ['none', 'optimizer', 'optimizer+params'] as const;
const models = ['Qwen/Qwen2.5-7B', 'llama-2-70b'].map((m) => resolveModel(m));

/** Per-node host RAM of one run, or null where the engine refuses it. */
function perNode(arch: (typeof models)[number], flags: Record<string, string>): number | null {
  let o;
  try {
    o = withEngineDefaults(optionsFromFlags(flags), flags);
  } catch {
    return null; // a configuration the engine does not run
  }
  if (engineRefusal(arch, o, flags) !== null) return null;
  const m = estimateMemory(arch, o);
  return hostRamOfOptions(arch, o, m.params.total, m.hostBytesPerGpu).perNodeBytes;
}

describe('host RAM per node: more offload never lowers it', () => {
  it('none <= optimizer <= optimizer+params, per engine, method, ZeRO stage and GPU count', () => {
    let compared = 0;
    for (const engine of ENGINES) {
      const p = ENGINE_PROFILES[engine];
      for (const zero of p.zero)
        for (const method of ['full', 'lora'])
          for (const gpus of ['1', '4'])
            for (const arch of models) {
              const flags = (offload: string) => ({
                framework: engine,
                method,
                zero: String(zero),
                offload,
                gpus,
                seq: '2048',
                batch: '1',
                checkpointing: 'full',
              });
              let last: number | null = null;
              for (const mode of MODES) {
                if (mode !== 'none' && !(p.offload[mode] ?? []).includes(zero)) continue;
                const v = perNode(arch, flags(mode));
                if (v === null) continue;
                if (last !== null) {
                  expect(
                    v,
                    `${engine} ${method} zero ${zero} gpus ${gpus} ${mode}`,
                  ).toBeGreaterThanOrEqual(last);
                  compared++;
                }
                last = v;
              }
            }
    }
    expect(compared).toBeGreaterThan(10);
  });
});

describe('host RAM per node: more GPUs on one node never lower it for the same per-GPU host buffers', () => {
  it('hostRamOf is non-decreasing in the GPUs on the node, every engine, stage and load', () => {
    for (const engine of ENGINES)
      for (const zero of [0, 1, 2, 3])
        for (const host of [0, 3e9, 4e10])
          for (const weights of [undefined, 'bf16', 'nf4'] as const)
            for (const load of [
              modelLoad(0),
              modelLoad(1.4e10),
              modelLoad(1.4e11, false, 3.7e10),
            ]) {
              let last = 0;
              for (let g = 1; g <= 8; g++) {
                const v = hostRamOf(engine, zero, g, host, weights, load).perNodeBytes;
                expect(v, `${engine} zero ${zero} ${weights} ${g} GPUs`).toBeGreaterThanOrEqual(
                  last,
                );
                last = v;
              }
            }
  });

  it('offloaded activation checkpoints (one copy per rank) grow the node with its GPUs', () => {
    const arch = models[0]!;
    let last = 0;
    for (const gpus of [1, 2, 4, 8]) {
      const flags = {
        framework: 'hf-trainer',
        method: 'lora',
        zero: '0',
        gpus: String(gpus),
        seq: '4096',
        batch: '4',
        checkpointing: 'offload',
      };
      const v = perNode(arch, flags);
      expect(v).not.toBeNull();
      expect(v!, `${gpus} GPUs`).toBeGreaterThanOrEqual(last);
      last = v!;
    }
    expect(last).toBeGreaterThan(0);
  });
});
