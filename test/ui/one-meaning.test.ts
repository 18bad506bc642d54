// one plan read in every view (the plan table, `explain` for its
// options, the explorer's detail, --json and the launch README) gives the same host RAM (label and
// rounding), device memory (bytes and string), x fastest and engine.
import { describe, expect, it } from 'vitest';
import { explainFit, type Plan, type PlanResult } from '../../src/core/plan/index.js';
import {
  launchFolder,
  launchInputFromFlags,
  launchInputOfPlan,
} from '../../src/commands/launch-run.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, modelSpecOf } from '../../src/io/load-scenario.js';
import { planScenarioFile } from '../../src/io/plan-scenario.js';
import { renderExplainText } from '../../src/ui/explain-text.js';
import { deviceMemoryValue, formatDeviceMemory, formatGiB } from '../../src/ui/format.js';
import { rowLine, tableColumns } from '../../src/ui/tui/cells.js';
import { renderEstimateText } from '../../src/ui/estimate-text.js';
import { exportPlan } from '../../src/ui/export-plan.js';
import { renderCompareText } from '../../src/ui/plan-compare.js';
import { HOST_RAM_LABEL, hostRamFigure } from '../../src/ui/host-ram-text.js';
import { planJson } from '../../src/ui/plan-json.js';
import { HOST_RAM_COLUMN, planColumns, renderMemory, renderTable } from '../../src/ui/plan-text.js';
import { compareProps, detailProps } from '../../src/ui/tui/view.js';

const FILE = 'scenarios/7b-full-rtx-a6000.yaml';

describe('one plan, one meaning in every view', async () => {
  const result: PlanResult = await planScenarioFile(FILE, { top: 10 });
  const arch = resolveModel(modelSpecOf(FILE, loadScenario(FILE)), { flag: 'model' });
  // A plan that holds host RAM beyond loading when one does (the table then shows the column), on one node.
  const p: Plan =
    result.plans.find((x) => x.hostRam.offloadBytes > 0 && x.options.gpus <= 8) ??
    result.plans.find((x) => x.options.gpus <= 8)!;
  const host = hostRamFigure(p.hostRam);
  const json = JSON.parse(JSON.stringify(planJson(result))) as {
    plans: {
      id: string;
      hostRam: { perNodeBytes: number };
      memory: { deviceBytes: number };
      slowdown: number;
      choices: { engine: string };
    }[];
  };
  const jp = json.plans.find((x) => x.id === p.id)!;
  const explanation = explainFit(arch, p.options, findGpu(p.hardware.gpuId));
  const explain = renderExplainText(explanation);
  const detail = detailProps(p, result, 120);
  const readme = launchFolder(launchInputOfPlan(p, arch, arch.hfId ?? arch.id)).files.find(
    (f) => f.path === 'README.md',
  )!.content;
  const columns = [...planColumns(result.plans)];
  if (!columns.includes(HOST_RAM_COLUMN)) columns.push(HOST_RAM_COLUMN);
  const table = renderTable([p], columns);
  const [head, , row = ''] = table.split('\n');

  it('host RAM: one figure (the plan hostRam), one label, one rounding', () => {
    expect(p.hostRam.perNodeBytes).toBeGreaterThan(0);
    expect(jp.hostRam.perNodeBytes).toBe(p.hostRam.perNodeBytes);
    expect(explanation.hostRam.perNodeBytes).toBe(p.hostRam.perNodeBytes);
    expect(head).toContain(HOST_RAM_LABEL);
    expect(row).toContain(host);
    expect(explain).toContain(`${HOST_RAM_LABEL}: ${host}`);
    expect(detail.hostRam).toBe(`${HOST_RAM_LABEL} ${host}`);
    expect(readme).toContain(`| ${HOST_RAM_LABEL} | ${host} |`);
    // No view shows another host-RAM figure for it (per GPU, or other rounding).
    for (const text of [table, explain, readme, detail.hostRam])
      expect(text).not.toMatch(/host RAM per GPU/);
  });

  it('device memory: the same bytes and the same string in every view (one formatter)', () => {
    const d = p.memory.deviceBytes;
    expect(jp.memory.deviceBytes).toBe(d);
    expect(explanation.deviceBytes).toBe(d);
    const shown = formatDeviceMemory(d);
    // One decimal of GiB: the estimate's band is -7 % / +11 %.
    expect(shown).toBe(`${(d / 2 ** 30).toFixed(1)} GiB`);
    const best = { ...result, plans: [p] };
    const views: [string, string][] = [
      ['table', row],
      ['plan memory', renderMemory(p)],
      ['explain', explain],
      ['explorer detail', detail.memoryHeadline],
      ['launch README', readme],
      ['compare', renderCompareText([{ file: FILE, result: best }])],
      [
        'explorer compare',
        compareProps([{ name: 'x', result: best }], 120).columns[0]!.rows.join('\n'),
      ],
      ['markdown export', exportPlan(best, 'md')],
    ];
    // The explorer's table writes the unit once per cell: the same number.
    expect(rowLine(tableColumns(200), p, false)).toContain(`${deviceMemoryValue(d)}/`);
    expect(shown).toBe(`${deviceMemoryValue(d)} GiB`);
    // Any other rounding of the same bytes (2 or 0 decimals, MiB) is a second meaning.
    const others = [2, 3].map((n) => `${(d / 2 ** 30).toFixed(n)} GiB`);
    for (const [view, text] of views) {
      expect(text, view).toContain(shown);
      for (const other of others) expect(text, view).not.toContain(other);
    }
    expect(readme).toContain(`| **device (nvidia-smi)** | ${shown} |`);
    expect(explain).toContain(`: ${shown} of `);
  });

  it('x fastest: the table, the explorer and --json; no technique factor contradicts it', () => {
    const x = `${p.slowdown.toFixed(2)}×`;
    expect(row).toContain(x);
    expect(detail.slowdown).toContain(`x fastest ${x}`);
    expect(jp.slowdown).toBe(p.slowdown);
    // Each factor is the plan's own (time model); one implying a plan faster than the fastest says so.
    expect(detail.techniques.length).toBe(Math.max(1, p.slowdownFactors.length));
    p.slowdownFactors.forEach((f, i) => {
      const line = detail.techniques[i]!;
      expect(line.startsWith(`×${f.factor.toFixed(2)} ${f.why}`)).toBe(true);
      if (p.slowdown / f.factor < 0.995) expect(line).toContain('not among the plans');
    });
  });

  it('engine: the table, --json and the README name the plan engine', () => {
    expect(row).toContain(p.choices.engine);
    expect(jp.choices.engine).toBe(p.choices.engine);
    expect(readme).toContain(`Engine: **${p.choices.engine}**`);
  });
});

// Paged optimizer states: estimate, explain and the launch README of the same
// flags give one device figure (the states resident up to the card's free memory) and one host-RAM figure.
describe('paged optimizer states: one meaning in estimate, explain and the launch README', () => {
  const flags = {
    method: 'full',
    framework: 'torchtune',
    optimizer: 'paged-adamw-8bit',
    'optimizer-in-backward': true,
    checkpointing: 'full',
    batch: '2',
    seq: '512',
  };
  for (const gpuId of ['rtx-4090', 'h100-sxm'])
    it(`llama-3.1-8b torchtune single-device on ${gpuId}`, () => {
      const lf = { gradAccum: undefined, powerLimit: undefined, sharding: undefined };
      const input = launchInputFromFlags(
        'llama-3.1-8b',
        { ...flags, gpu: gpuId },
        { ...lf, out: '', force: false },
      );
      const e = input.estimate;
      const p = e.paged!;
      expect(e.fits).toBe(true);
      const shown = formatDeviceMemory(e.perGpu.deviceBytes);
      const explanation = explainFit(input.arch, input.options, input.gpu);
      expect(explanation.deviceBytes).toBe(e.perGpu.deviceBytes);
      expect(explanation.hostRam.perNodeBytes).toBeGreaterThanOrEqual(0);
      const readme = launchFolder(input).files.find((f) => f.path === 'README.md')!.content;
      expect(readme).toContain(`| **device (nvidia-smi)** | ${shown} |`);
      expect(readme).toContain(`| ${HOST_RAM_LABEL} | ${hostRamFigure(explanation.hostRam)} |`);
      expect(renderExplainText(explanation)).toContain(`: ${shown} of `);
      expect(renderEstimateText(e)).toContain(
        `paged optimizer states ${formatGiB(p.statesBytes)}: ${formatGiB(p.deviceBytes)} on the device, ${formatGiB(p.hostBytes)} in host RAM`,
      );
      // Every state is on the device or in host RAM; the fit counts only the working set.
      expect(p.deviceBytes + p.hostBytes).toBe(p.statesBytes);
      expect(e.gpu!.headroomBytes).toBe(e.gpu!.capacityBytes - p.fitDeviceBytes);
      if (gpuId === 'h100-sxm') expect(p.hostBytes).toBe(0);
      else expect(e.perGpu.deviceBytes).toBe(e.gpu!.capacityBytes);
    });
});
