// A plan past the positions the model's config declares runs only on an engine that scales RoPE itself (Unsloth
// sets a linear rope_scaling of max_seq_length over max_position_embeddings): the plan says so, as estimate warns.
import { describe, expect, it } from 'vitest';
import { planYaml } from '../helpers/plan.js';

function planAt(seq: number) {
  return planYaml(
    'past-positions.yaml',
    `name: past positions
model: qwen3-0.6b
job: { kind: fine-tune, methods: [lora], seq: ${seq}, globalBatch: 8, datasetTokens: 1000000, epochs: 1 }
hardware: { owned: [{ gpu: h100-sxm, count: 1 }], counts: { min: 1, max: 1 } }
search: { offload: [none] }
rank: time
`,
    5,
  );
}

describe("plan notes: a sequence past the model's positions", () => {
  it("notes the engine's RoPE scaling on every plan past Qwen3's 40,960 positions", () => {
    const r = planAt(65_536);
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans)
      expect(p.notes?.some((n) => /past the 40,960 positions qwen3-0\.6b's config/.test(n))).toBe(
        true,
      );
  });

  it('notes nothing within them', () => {
    for (const p of planAt(8192).plans)
      expect(p.notes?.some((n) => /past the .* positions/.test(n)) ?? false).toBe(false);
  });
});
