// One-GPU optimizer offload: torchtune's single-device recipes take torchao's CPUOffloadOptimizer as their
// optimizer component (states, a pinned copy of each parameter and its gradient, and the step on the host);
// the engines without such a path refuse `--zero 0 --offload optimizer`, each citing its own source.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { mapTorchtune } from '../../src/core/engines/torchtune/from.js';

const llama = resolveModel('llama-3.1-8b');
const gpu = findGpu('h100-sxm');
const GiB = 1024 ** 3;

function on(flags: Record<string, unknown>) {
  const all = { method: 'full', gpus: 1, gpu: 'h100-sxm', ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, refusal: engineRefusal(llama, o, all), e: () => buildEstimate(llama, o, gpu) };
}

describe('torchtune: optimizer offload on one GPU (torchao CPUOffloadOptimizer)', () => {
  const offloaded = on({ framework: 'torchtune', zero: 0, offload: 'optimizer' });
  const resident = on({ framework: 'torchtune', zero: 0 });

  it('is estimated: the states leave the GPU, the host holds them with a parameter and gradient copy', () => {
    expect(offloaded.refusal).toBeNull();
    const e = offloaded.e();
    const r = resident.e();
    expect(e.perGpu.allocatedBytes).toBeLessThan(r.perGpu.allocatedBytes);
    // The resident states (what left the GPU) plus two bf16 copies of the 8.03B trained parameters.
    const states = r.phases.reduce((m, p) => Math.max(m, p.parts.optimizer ?? 0), 0);
    expect(states).toBeGreaterThan(0);
    expect(e.hostBytesPerGpu - states).toBeCloseTo(2 * 2 * e.params.trainable, -8);
    expect(r.hostBytesPerGpu).toBe(0);
    expect(e.hostBytesPerGpu / GiB).toBeGreaterThan(80);
  });

  it('is not faster than the resident step: the host step and the gradient copies are added', () => {
    expect(offloaded.e().time!.stepSeconds).toBeGreaterThan(resident.e().time!.stepSeconds);
  });

  it('refuses optimizers a recipe YAML cannot hand to CPUOffloadOptimizer, citing torchao', () => {
    expect(
      on({ framework: 'torchtune', zero: 0, offload: 'optimizer', optimizer: 'sgd' }).refusal,
    ).toMatch(/torchtune-cpu-offload-adamw.*torchao\/prototype\/low_bit_optim\/cpu_offload\.py/);
  });

  it('more than one GPU shards with FSDP2 instead (the distributed-shards rule)', () => {
    expect(on({ framework: 'torchtune', zero: 0, offload: 'optimizer', gpus: 2 }).refusal).toMatch(
      /torchtune-distributed-shards/,
    );
  });

  it('the launcher writes the CPUOffloadOptimizer component into the single-device recipe', () => {
    const x: LaunchInput = {
      arch: llama,
      options: offloaded.o,
      gpu,
      gradAccum: 1,
      powerLimitW: null,
      estimate: offloaded.e(),
      modelRef: llama.hfId ?? 'llama-3.1-8b',
    };
    const b = buildLaunch(x);
    const yaml = b.files.find((f) => f.path === 'torchtune.yaml');
    expect(yaml).toBeDefined();
    const cfg = parse(yaml!.content) as Record<string, Record<string, unknown>>;
    expect(cfg.optimizer!._component_).toBe('torchao.prototype.low_bit_optim.CPUOffloadOptimizer');
    expect(cfg.optimizer!.offload_gradients).toBe(false);
    expect(cfg.optimizer_in_bwd).toBe(false);
  });
});

describe('engines without optimizer offload outside ZeRO / FSDP refuse it, citing their source', () => {
  const cases: [string, RegExp][] = [
    ['hf-trainer', /transformers\/blob\/[0-9a-f]+\/src\/transformers\/trainer\.py/],
    ['litgpt', /litgpt\/blob\/[0-9a-f]+\/litgpt\/finetune\/full\.py/],
    ['unsloth', /unsloth/],
    ['hf-deepspeed', /integrations\/deepspeed\.py/],
    ['torchtitan', /torchtitan\/blob\/v0\.3\.0/],
  ];
  for (const [engine, source] of cases)
    it(engine, () => {
      const r = on({ framework: engine, zero: 0, offload: 'optimizer' }).refusal;
      expect(r).toMatch(source);
    });
  it('the default family (hf) refuses it and names the engine that runs it', () => {
    const r = on({ zero: 0, offload: 'optimizer' }).refusal;
    expect(r).toMatch(/hf-trainer no optimizer offload at ZeRO-0 \(https:.*trainer\.py\)/);
    expect(r).toMatch(/--framework torchtune/);
  });
});

describe('estimate --from a torchtune config naming CPUOffloadOptimizer', () => {
  it('reads it as AdamW offloaded without ZeRO', () => {
    const m = mapTorchtune({
      model: { _component_: 'torchtune.models.llama3_1.llama3_1_8b' },
      optimizer: {
        _component_: 'torchao.prototype.low_bit_optim.CPUOffloadOptimizer',
        offload_gradients: true,
        lr: 2e-5,
      },
    });
    expect(m.flags).toMatchObject({ optimizer: 'adamw', offload: 'optimizer', zero: 0 });
    expect(m.warnings.join(' ')).toMatch(/offload_gradients/);
  });
});
