// Pure-bf16 full fine-tunes: lossy without compensation, near where the engine's launcher writes an
// optimizer that rounds the bf16 update stochastically (torchtune + torchao), and the launch says so.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { qualityOf } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const arch = resolveModel('llama-2-7b');
const gpu = findGpu('rtx-a6000');
const full = (flags: Record<string, unknown>) =>
  optionsFromFlags({ method: 'full', weights: 'bf16', ...flags });

function tuneConfig(flags: Record<string, unknown>): Record<string, unknown> {
  const options = full({ framework: 'torchtune', attention: 'sdpa', ...flags });
  const b = buildLaunch({
    arch,
    options,
    gpu,
    gradAccum: 1,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? 'llama-2-7b',
  });
  const f = b.files.find((x) => x.path === 'torchtune.yaml');
  expect(f, 'torchtune.yaml written').toBeDefined();
  return parse(f!.content) as Record<string, unknown>;
}

describe('bf16 weights without an fp32 master copy', () => {
  it('is lossy under the Trainer (round-to-nearest drops small updates)', () => {
    const q = qualityOf(full({ framework: 'hf', optimizer: 'adamw-8bit' }));
    expect(q.tier).toBe('lossy');
  });

  it('is near under torchtune with 8-bit AdamW, which its launcher writes as torchao AdamW8bit with stochastic rounding', () => {
    const q = qualityOf(full({ framework: 'torchtune', optimizer: 'adamw-8bit' }));
    expect(q.tier).toBe('near');
    expect(q.items.map((i) => i.technique)).toContain('bf16 weights, stochastic rounding');
  });

  it('stays lossy under torchtune for optimizers launched as plain torch ones (AdamW, Adafactor)', () => {
    for (const optimizer of ['adamw', 'adafactor'])
      expect(qualityOf(full({ framework: 'torchtune', optimizer })).tier, optimizer).toBe('lossy');
  });

  it('launches torchao optimizers with bf16_stochastic_round for exactly those plans', () => {
    const eight = tuneConfig({ optimizer: 'adamw-8bit' }).optimizer as Record<string, unknown>;
    expect(eight._component_).toBe('torchao.optim.AdamW8bit');
    expect(eight.bf16_stochastic_round).toBe(true);
    const adamw = tuneConfig({ optimizer: 'adamw' }).optimizer as Record<string, unknown>;
    expect(adamw._component_).toBe('torch.optim.AdamW');
    expect(adamw.bf16_stochastic_round).toBeUndefined();
    const sgd = tuneConfig({ optimizer: 'sgd' }).optimizer as Record<string, unknown>;
    expect(sgd.bf16_stochastic_round).toBeUndefined();
  });
});
