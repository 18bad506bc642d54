// The training tokens a fine-tune scenario plans travel with its exported plans (plan --json's
// scenario.trainTokens), so `launch --from-plan` writes what `launch <scenario>` writes: torchtitan's
// training.steps is the planned tokens over the tokens a step, not the recipe's default.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const SCENARIO = 'scenarios/fp8-8b-8xh100.yaml'; // its first plan launches torchtitan

describe('launch --from-plan keeps the planned training tokens', () => {
  const scratch = scratchDir('vramplan-from-plan-tokens-');
  afterAll(scratch.remove);
  const folder = (args: string[], out: string): Record<string, string> => {
    const dir = join(scratch.dir, out);
    const r = runCli([...args, '--out', dir]);
    expect(r.status, r.stderr).toBe(0);
    return Object.fromEntries(
      readdirSync(dir).map((f) => [f, f.startsWith('.') ? '' : readFileSync(join(dir, f), 'utf8')]),
    );
  };

  it("writes the scenario's folder from its exported plans, torchtitan's steps included", () => {
    expect(cliBuilt()).toBe(true);
    const plans = join(scratch.dir, 'plans.json');
    const p = runCli(['plan', SCENARIO, '--export', plans]);
    expect(p.status, p.stderr).toBe(0);
    const exported = JSON.parse(readFileSync(plans, 'utf8'));
    expect(exported.scenario.trainTokens).toBeGreaterThan(0);
    const fromScenario = folder(['launch', SCENARIO], 'from-scenario');
    const fromPlan = folder(['launch', '--from-plan', plans], 'from-plan');
    expect(fromScenario['torchtitan_vramplan.py']).toMatch(/config\.training\.steps = \d+/);
    expect(fromScenario['torchtitan_vramplan.py']).not.toMatch(/training\.steps = 1000\b/);
    expect(fromPlan).toEqual(fromScenario);
  });
});
