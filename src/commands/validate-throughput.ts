/** Body of `validate --throughput`: time every scorable published speed and summarize the errors. */
import { estimateTime } from '../core/time/index.js';
import {
  sourceName,
  throughputSummaries,
  worstRows,
  type ThroughputRow,
} from '../core/time/accuracy.js';
import { findGpu } from '../io/load-catalog.js';
import { engineOf } from '../core/engines/engine.js';
import { caseArch, loadThroughputCases } from '../io/load-calibration.js';
import { optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { timeOptionsFromFlags } from '../schema/time.js';
import { renderThroughputText } from '../ui/validate-text.js';

/** Case flags in the CLI's shape (lists become comma lists). */
function cliFlags(flags: Record<string, unknown>): RawFlags {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) out[k] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

export function throughputRows(file = 'throughput.json'): ThroughputRow[] {
  const rows: ThroughputRow[] = [];
  for (const c of loadThroughputCases(file)) {
    if (c.scorable === false) continue;
    const caseFlags = cliFlags(c.flags);
    // A rig the source describes as having no NVLink is timed over PCIe even when the catalog card has a
    // bridge connector (the case's `interconnect` field, read for every case alike).
    const flags: RawFlags =
      caseFlags.interconnect === undefined && /no NVLink/i.test(c.interconnect ?? '')
        ? { ...caseFlags, interconnect: 'pcie' }
        : caseFlags;
    const options = optionsFromFlags(flags);
    const time = timeOptionsFromFlags(flags, options);
    const gpu = findGpu(String(flags.gpu));
    const t = estimateTime(caseArch(c), options, gpu, time);
    const est = c.kind === 'decode' ? (t.decodeTokensPerSecond ?? 0) : t.tokensPerSecondPerGpu;
    rows.push({
      id: c.id,
      kind: c.kind,
      source: sourceName(c.source),
      trust: c.trust ?? '',
      measured: c.measured_value,
      estimated: est,
      error: (est - c.measured_value) / c.measured_value,
      bound: t.bound,
      engine: engineOf(options),
      kernel: t.settings.quantFormat ?? options.weights,
    });
  }
  return rows;
}

export function runValidateThroughput(file: string, json: boolean): number {
  const rows = throughputRows(file);
  const summary = throughputSummaries(rows);
  const worst = worstRows(rows, 10);
  process.stdout.write(
    json
      ? `${JSON.stringify({ rows, summary, worst: worst.map((r) => r.id) }, null, 2)}\n`
      : `${renderThroughputText(rows, summary, worst)}\n`,
  );
  return 0;
}
