// Paged optimizer states fill the card's free memory by design: the plan table and report show what the plan
// needs and the paged states beside it, not a card at its limit.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/core/plan/index.js';
import { gpuMemoryCell, renderMemory } from '../../src/ui/plan-text.js';
import { tableColumns } from '../../src/ui/tui/cells.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SCENARIO = 'test/fixtures/scenarios/paged-8b-full-h100.yaml';
const GiB = 1024 ** 3;

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
});

function plans(): Plan[] {
  const r = spawnSync(process.execPath, [CLI, 'plan', SCENARIO, '--json', '--top', '20'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { plans: Plan[] }).plans;
}

describe('plan: paged optimizer states are labelled', () => {
  const all = plans();
  const fit = (p: Plan) => p.memory.capacityBytes - p.memory.headroomBytes;
  const paged = all.filter((p) => p.options.optimizer.startsWith('paged'));
  const plain = all.filter((p) => !p.options.optimizer.startsWith('paged'));

  it('shows the bytes the plan needs and the paged states beside them', () => {
    expect(paged.length).toBeGreaterThan(0);
    for (const p of paged) {
      const extra = p.memory.deviceBytes - fit(p);
      expect(extra).toBeGreaterThan(0);
      const cell = gpuMemoryCell(p);
      expect(cell).toBe(
        `${(fit(p) / GiB).toFixed(1)} GiB/${(p.memory.capacityBytes / GiB).toFixed(0)} GiB +${(extra / GiB).toFixed(1)} paged`,
      );
      expect(renderMemory(p)).toMatch(
        new RegExp(
          `incl\\. [\\d.]+ GiB of paged optimizer states .*needs ${(fit(p) / GiB).toFixed(1)} GiB`,
        ),
      );
    }
  });

  it('keeps the device figure for plans without paged states', () => {
    expect(plain.length).toBeGreaterThan(0);
    for (const p of plain) {
      expect(fit(p)).toBe(p.memory.deviceBytes);
      expect(gpuMemoryCell(p)).toBe(
        `${(p.memory.deviceBytes / GiB).toFixed(1)} GiB/${(p.memory.capacityBytes / GiB).toFixed(0)} GiB`,
      );
      expect(renderMemory(p)).not.toMatch(/paged/);
    }
  });

  it('the explorer table shows the bytes a paged plan needs (marked p), wide and narrow', () => {
    const cell = (width: number, title: string, p: Plan) =>
      tableColumns(width)
        .find((c) => c.title === title)!
        .cell(p);
    const p = paged[0]!;
    const cap = (p.memory.capacityBytes / GiB).toFixed(0);
    expect(cell(200, 'mem/GPU', p)).toBe(`${(fit(p) / GiB).toFixed(1)}p/${cap} GiB`);
    expect(cell(100, 'mem', p)).toBe(`${(fit(p) / GiB).toFixed(0)}/${cap}`);
    const q = plain[0]!;
    expect(cell(200, 'mem/GPU', q)).toBe(`${(q.memory.deviceBytes / GiB).toFixed(1)}/${cap} GiB`);
  });
});
