// A global batch the data-parallel ranks do not divide runs the next larger one; the plan says so.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SCENARIO = 'test/fixtures/scenarios/three-gpus-batch-16.yaml';
const run = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
});

interface JsonPlan {
  choices: { globalBatch: number; dp: number };
  notes?: string[];
}

describe('plan: a rounded global batch is said', () => {
  it('notes the rounding on plans whose data-parallel ranks do not divide the batch', () => {
    const r = run('plan', SCENARIO, '--json', '--top', '5');
    expect(r.status).toBe(0);
    const plans = (JSON.parse(r.stdout) as { plans: JsonPlan[] }).plans;
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.choices.globalBatch).toBeGreaterThan(16);
      expect(16 % p.choices.dp).not.toBe(0);
      expect(p.notes).toEqual([
        expect.stringContaining(
          `global batch ${p.choices.globalBatch}, rounded up from the scenario's 16`,
        ),
      ]);
    }
  });

  it('gives no notes where the data-parallel ranks divide the batch', () => {
    const r = run('plan', 'scenarios/4x-rtx3090-one-circuit.yaml', '--json', '--top', '5');
    expect(r.status).toBe(0);
    const plans = (JSON.parse(r.stdout) as { plans: JsonPlan[] }).plans;
    expect(plans.length).toBeGreaterThan(0);
    for (const p of plans) {
      expect(p.choices.globalBatch).toBe(16);
      expect(p.notes).toBeUndefined();
    }
  });

  it('prints the note under the best plan in text', () => {
    const r = run('plan', SCENARIO, '--no-color');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/global batch 18 samples per step/);
    expect(r.stdout).toMatch(/note: global batch 18, rounded up from the scenario's 16/);
  });
});
