import { describe, expect, it } from 'vitest';
import { modelLoad } from '../helpers/host-ram.js';
import { hostRamOf, hostRamPerNode } from '../../src/core/memory/host-ram.js';
import { ENGINES } from '../../src/schema/engine.js';

describe('hostRamPerNode', () => {
  it('is the larger of the loading peak and the offloaded states with their pinned buffers', () => {
    for (const engine of ENGINES)
      for (const zero of [0, 1, 2, 3])
        for (const gpus of [1, 2, 8])
          for (const host of [0, 3e9])
            for (const ckpt of [0, 1.4e10])
              for (const weights of [undefined, 'bf16', 'nf4'] as const) {
                const r = hostRamOf(engine, zero, gpus, host, weights, modelLoad(ckpt));
                const perNode = hostRamPerNode(engine, zero, gpus, host, weights, modelLoad(ckpt));
                expect(perNode).toBe(r.perNodeBytes);
                expect(perNode).toBe(Math.max(r.loadingBytes, r.offloadBytes + r.pinnedBytes));
              }
  });
});
