// A rented job spans several machines only on an offer whose machines share a scale-out network
// (catalogs/offers `clusterNetwork`): marketplace and per-GPU pod offers rent single machines (Vast.ai's
// instances on different machines sit on separate NATed bridge networks, docs.vast.ai
// multi-node-training-using-torch-nccl), so their plans stay within one node.
import { describe, expect, it } from 'vitest';
import { loadOffers } from '../../src/io/load-catalog.js';
import { planYaml } from '../helpers/plan.js';

const scenario = (offers: string) => `name: rent-70b-lora
model: llama-3.1-70b
job: { kind: fine-tune, methods: [lora], seq: 2048, globalBatch: 64, datasetTokens: 20000000 }
hardware:
  rent: { offers: [${offers}] }
  gpusPerNode: 8
  counts: { min: 8, max: 32 }
rank: time
`;

describe('rented multi-node plans', () => {
  it('an offer without a cluster network plans one node at most', () => {
    const r = planYaml(
      'rent.yaml',
      scenario('vast-rtx-4090-community, runpod-h100-sxm-on-demand'),
      30,
    );
    expect(r.fits).toBe(true);
    for (const p of r.plans) expect(p.hardware.gpus).toBeLessThanOrEqual(8);
  });
  it('an offer whose machines share a scale-out network spans nodes', () => {
    const offer = loadOffers().find((o) => o.id === 'aws-h100-sxm-reserved-8x');
    expect(offer?.clusterNetwork).toMatch(/^https:\/\//);
    const r = planYaml('rent.yaml', scenario('aws-h100-sxm-reserved-8x'), 30);
    expect(r.plans.some((p) => p.hardware.gpus > 8)).toBe(true);
  });
});
