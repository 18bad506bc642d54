// Every shipped scenario parses, plans, and meets its `expect` block; the JSON Schema file is up to date.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plan } from '../src/core/plan/index.js';
import { tierRank } from '../src/core/plan/index.js';
import { planScenarioFile } from '../src/io/plan-scenario.js';
import { renderPlanText } from '../src/ui/plan-text.js';
import { resolveModel } from '../src/io/load-model.js';
import { loadScenario, parseScenario, resolveHardware } from '../src/io/load-scenario.js';
import { UserError } from '../src/io/errors.js';
import { scenarioJsonSchema } from '../src/schema/scenario.js';

const DIR = join(import.meta.dirname, '..', 'scenarios');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml') && !f.startsWith('bench-'));

describe('shipped scenarios', () => {
  it('ships the default and at least six examples', () => {
    expect(files).toContain('default.yaml');
    expect(files.length).toBeGreaterThanOrEqual(6);
  });

  for (const f of files) {
    it(`${f} plans and meets its expect block`, async () => {
      const s = loadScenario(join(DIR, f));
      // The one pipeline plan, compare, launch and the explorer use.
      const r = await planScenarioFile(join(DIR, f), { top: 5 });
      const e = s.expect ?? {};
      if (e.fits !== undefined) expect(r.fits).toBe(e.fits);
      const best = r.plans[0];
      if (e.bestMethod) expect(best?.choices.method).toBe(e.bestMethod);
      if (e.bestGpu) expect(best?.hardware.gpuId).toBe(e.bestGpu);
      if (e.bestGpus) expect(best?.hardware.gpus).toBe(e.bestGpus);
      if (e.minPlans !== undefined) expect(r.plans.length).toBeGreaterThanOrEqual(e.minPlans);
      if (e.prunedReason) expect(r.pruned.map((p) => p.code)).toContain(e.prunedReason);
      if (e.bestQuality)
        expect(tierRank(best!.quality.tier)).toBeLessThanOrEqual(tierRank(e.bestQuality));
      if (e.bestEngine) expect(best?.choices.engine).toBe(e.bestEngine);
      if (e.bestWeights) expect(best?.choices.weights).toBe(e.bestWeights);
      if (e.bestTp) expect(best?.choices.tp).toBe(e.bestTp);
      if (e.bestMasterWeights !== undefined) {
        // An fp32 copy of the weights: an fp32 master beside 16-bit weights, or fp32 weights trained
        // under mixed precision (FSDP / autocast); either way its bytes are in the weights component.
        const o = best!.options;
        const fp32Copy = o.masterWeights || (o.method === 'full' && o.weights === 'fp32');
        expect(fp32Copy).toBe(e.bestMasterWeights);
        if (fp32Copy) {
          const shard = o.zero === 3 ? best!.choices.dp : 1;
          const perGpuFp32 = (r.model.params * 4) / (shard * o.tp * o.pp);
          expect(best!.memory.breakdown.weights + best!.hostRam.offloadBytes).toBeGreaterThan(
            perGpuFp32 * 0.9,
          );
        }
      }
      if (e.bestHostRam !== undefined) {
        expect(best!.hostRam.offloadBytes > 0).toBe(e.bestHostRam);
        if (e.bestHostRam) expect(renderPlanText(r)).toMatch(/host RAM per node: /);
      }
      if (e.bestGpuMemoryGiB !== undefined)
        expect(best!.memory.capacityBytes / 2 ** 30).toBeGreaterThanOrEqual(
          e.bestGpuMemoryGiB * 0.9,
        );
      // Ranked plans are sorted by the scenario's first key, and every plan fits its GPU.
      for (const p of r.plans)
        expect(p.memory.deviceBytes).toBeLessThanOrEqual(p.memory.capacityBytes);
    });
  }

  it('the same input gives the same ranking', () => {
    const s = loadScenario(join(DIR, 'default.yaml'));
    const hw = resolveHardware(s);
    const run = () =>
      plan({
        scenario: s,
        arch: resolveModel(s.model),
        hardware: hw.options,
        circuits: hw.circuits,
      }).plans.map((p) => p.id);
    expect(run()).toEqual(run());
  });

  it('scenarios/scenario.schema.json is generated from the zod schema (run `vramplan schema --write`)', () => {
    const onDisk = JSON.parse(readFileSync(join(DIR, 'scenario.schema.json'), 'utf8'));
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(scenarioJsonSchema())));
  });
});

describe('scenario validation errors', () => {
  it('names the file, the field path, the value and what is allowed', () => {
    const text = readFileSync(
      join(import.meta.dirname, 'fixtures/scenarios/bad-field.yaml'),
      'utf8',
    );
    expect(() => parseScenario('bad-field.yaml', text)).toThrow(UserError);
    try {
      parseScenario('bad-field.yaml', text);
    } catch (e) {
      expect((e as Error).message).toMatch(
        /^bad-field\.yaml: ✖ Invalid option: expected one of "full"\|"lora"\|"qlora" \(got "dpo"\) → at job\.methods\.1$/,
      );
    }
  });

  it('says a PPO job is estimated, not planned, without a near-miss objective beside it', () => {
    const text =
      'name: x\nmodel: gpt2\njob: { kind: fine-tune, methods: [lora], objective: ppo, seq: 512, globalBatch: 8 }\n';
    expect(() => parseScenario('x.yaml', text)).toThrow(
      /^x\.yaml: ✖ ppo is estimated, not planned \(vramplan estimate --objective ppo\): .*planned: sft, dpo, orpo, kto, simpo, grpo \(got "ppo"\) → at job\.objective/,
    );
    expect(() => parseScenario('x.yaml', text)).not.toThrow(/did you mean/);
  });

  it('rejects unknown keys (strict)', () => {
    expect(() =>
      parseScenario('x.yaml', 'name: x\nmodel: gpt2\njob: { kind: inference }\nbudget: 3\n'),
    ).toThrow(/Unrecognized key: "budget"/);
  });

  it('reports invalid YAML with the file name', () => {
    expect(() => parseScenario('x.yaml', 'name: [\n')).toThrow(/^x\.yaml: invalid YAML/);
  });
});
