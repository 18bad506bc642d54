// The built CLI as a subprocess: exit codes, --json shape, --export atomic and no-overwrite.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const run = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
});

describe('vramplan plan', () => {
  it('exit 0 and a ranked --json result for the default scenario', () => {
    const r = run('plan', 'scenarios/default.yaml', '--json', '--top', '3');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.fits).toBe(true);
    expect(j.plans).toHaveLength(3);
    const p = j.plans[0];
    expect(Object.keys(p)).toEqual(
      expect.arrayContaining(['choices', 'memory', 'power', 'time', 'cost', 'slowdown']),
    );
    expect(p.memory.deviceBytes).toBeLessThanOrEqual(p.memory.capacityBytes);
    expect(j.pruned).toContainEqual(
      expect.objectContaining({ code: 'oom', message: 'out of GPU memory' }),
    );
    // ranked by cost
    expect(j.plans[0].cost.usd).toBeLessThanOrEqual(j.plans[1].cost.usd);
  });

  it('exit 2 with nearest fixes when nothing fits', () => {
    const r = run('plan', 'test/fixtures/scenarios/nothing-fits.yaml');
    expect(r.status).toBe(2);
    expect(r.stdout).toMatch(/Nothing fits\. Nearest fixes/);
    expect(r.stdout).toMatch(/out of memory by [\d.]+ GiB per GPU/);
  });

  it('exit 1 with the file, field path, value and allowed values for a bad scenario', () => {
    const r = run('plan', 'test/fixtures/scenarios/bad-field.yaml');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /bad-field\.yaml: ✖ Invalid option: expected one of "full"\|"lora"\|"qlora" \(got "dpo"\) → at job\.methods\.1/,
    );
  });

  it('exit 1 for a bad --top and a bad --export extension', () => {
    expect(run('plan', 'scenarios/default.yaml', '--top', '0').stderr).toMatch(
      /--top: got '0'; expected an integer from 1 to 1000/,
    );
    expect(run('plan', 'scenarios/default.yaml', '--export', 'x.txt').status).toBe(1);
  });

  it('--export writes json/csv/md/svg atomically and refuses to overwrite without --force', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-export-'));
    for (const ext of ['json', 'csv', 'md', 'svg']) {
      const f = join(dir, `plans.${ext}`);
      expect(run('plan', 'scenarios/default.yaml', '--top', '2', '--export', f).status).toBe(0);
      expect(readFileSync(f, 'utf8').length).toBeGreaterThan(10);
    }
    expect(readFileSync(join(dir, 'plans.svg'), 'utf8')).toMatch(
      /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/,
    );
    const csv = readFileSync(join(dir, 'plans.csv'), 'utf8').split('\n');
    expect(csv[0]).toMatch(/^rank,id,kind,gpu,gpus,.*,onFront,engine,quality$/);
    expect(csv[1]).toMatch(/,(true|false),[a-z.-]+,(exact|near|lossy)$/);
    writeFileSync(join(dir, 'keep.md'), 'mine');
    const r = run('plan', 'scenarios/default.yaml', '--export', join(dir, 'keep.md'));
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/already exists; not overwriting/);
    expect(readFileSync(join(dir, 'keep.md'), 'utf8')).toBe('mine');
    expect(
      run('plan', 'scenarios/default.yaml', '--export', join(dir, 'keep.md'), '--force').status,
    ).toBe(0);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('vramplan compare and catalog', () => {
  it('compare prints scenarios side by side', () => {
    const r = run('compare', 'scenarios/default.yaml', 'scenarios/octocoder-inference-24gb.yaml');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/13B fine-tune on one RTX 4090\s+OctoCoder-15B inference/);
  });
  it('catalog lists and shows entries', () => {
    expect(run('catalog', 'circuits').stdout).toMatch(/us-120v-15a\s+US 120 V \/ 15 A.*1,440 W/);
    expect(JSON.parse(run('catalog', 'gpus', 'rtx-4090', '--json').stdout).memoryMiB).toBe(24564);
    expect(run('catalog', 'gpus', 'rtx-4090').stdout).toMatch(/^id: +rtx-4090\n/);
    expect(run('catalog', 'gpus', 'rtx4090').stderr).toMatch(
      /^vramplan: catalog gpus: no entry 'rtx4090'; did you mean .*'rtx-4090'/,
    );
    expect(run('catalog', 'models', 'llama-3.1').stdout).toMatch(/^id .*\nllama-3.1-405b/);
    expect(run('catalog', 'models', 'mistrl').stderr).toMatch(/did you mean 'mistral-7b-v0.1'/);
    expect(run('catalog', 'widgets').stderr).toMatch(
      /<kind>: got 'widgets'; expected one of gpus, models, offers, circuits/,
    );
  });
});
