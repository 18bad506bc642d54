/** Body of `validate`: estimate every scorable case, then print the table and the summaries. */
import {
  caseError,
  longestFittingSeq,
  summaryTable,
  type CaseResult,
  type MaxContextRow,
  type Metric,
} from '../core/memory/index.js';
import { buildEstimate } from '../core/estimate.js';
import { GiB } from '../core/units.js';
import { findGpu } from '../io/load-catalog.js';
import {
  caseArch,
  caseArchIn,
  casesLocation,
  loadCalibrationCases,
  loadMaxContextCases,
} from '../io/load-calibration.js';
import { optionsFromFlags } from '../schema/flags.js';
import type { EstimateOptions } from '../schema/estimate.js';
import type { CalibrationCase } from '../schema/calibration.js';
import { isServingFramework, sourceName } from '../core/time/accuracy.js';
import { renderValidateText } from '../ui/validate-text.js';
import { renderRlSection } from '../ui/validate-rl-text.js';
import { rlRows } from './validate-rl.js';
import { kvCacheRows } from './validate-kv.js';
import { renderKvCacheSection } from '../ui/validate-kv-text.js';

const METRICS: readonly string[] = ['allocated', 'reserved', 'device'];

/** Kind of a memory case: training, or inference on a serving engine (serving) or any other (decode). */
function memoryKind(o: EstimateOptions): 'training' | 'decode' | 'serving' {
  if (o.method !== 'inference') return 'training';
  return isServingFramework(o.framework) ? 'serving' : 'decode';
}

/** What a case says of the measured build beyond its flags (the loss uncompiled or compiled alone, foreach AdamW, no accumulation, fp32 k-bit stream, shifted logits). */
export function buildContextOf(
  c: Partial<
    Pick<
      CalibrationCase,
      'loss_compile' | 'adam_impl' | 'grad_accum' | 'kbit_stream' | 'causal_loss'
    >
  >,
): Parameters<typeof buildEstimate>[4] {
  const b: NonNullable<Parameters<typeof buildEstimate>[4]> = {};
  if (c.loss_compile === 'off') b.eagerLoss = true;
  if (c.loss_compile === 'alone') b.lossCompiledAlone = true;
  if (c.adam_impl === 'foreach') b.adamForeach = true;
  if (c.grad_accum === 1) b.gradsFreedEachStep = true;
  if (c.kbit_stream === 'fp32') b.kbitFp32Stream = true;
  if (c.causal_loss === 'shift-logits') b.shiftedLogitsCopy = true;
  return Object.keys(b).length > 0 ? b : undefined;
}

export function calibrationRows(file: string): CaseResult[] {
  const rows: CaseResult[] = [];
  const { dir, name } = casesLocation(file);
  for (const c of loadCalibrationCases(name, dir)) {
    if (!METRICS.includes(c.metric)) continue; // 'other': metric not stated, nothing to compare with
    // The run's LoRA dropout (the case says so).
    const options = optionsFromFlags(
      c.lora_dropout === undefined ? c.flags : { ...c.flags, 'lora-dropout': c.lora_dropout },
    );
    // A serving engine fills the card it runs on (vLLM's, SGLang's KV pool): its rows estimate on their GPU.
    const gpu =
      memoryKind(options) === 'serving' && typeof c.flags.gpu === 'string'
        ? findGpu(c.flags.gpu)
        : undefined;
    // A build that ran its loss uncompiled whatever --compile said (the case says so).
    const r = buildEstimate(caseArchIn(c, dir), options, gpu, undefined, buildContextOf(c));
    const metric = c.metric as Metric;
    const est =
      metric === 'allocated'
        ? r.perGpu.allocatedBytes
        : metric === 'reserved'
          ? r.perGpu.reservedBytes
          : r.perGpu.deviceBytes;
    rows.push({
      id: c.id,
      metric,
      framework: options.framework,
      kind: memoryKind(options),
      source: sourceName(c.source),
      inSample: c.inSample === true,
      measuredBytes: c.measured_bytes,
      estimatedBytes: est,
      error: caseError(c.measured_bytes, est),
    });
  }
  return rows;
}

/** calibration/max-context.json: each published longest sequence beside the one vramplan finds. */
export function maxContextRows(): MaxContextRow[] {
  return loadMaxContextCases().map((c) => {
    const options = optionsFromFlags(c.flags);
    // The run's stack, as a memory case's (buildContextOf): its estimate is of that build.
    const gib = c.gpu_memory_gib * GiB;
    const estimated = longestFittingSeq(caseArch(c), options, gib, buildContextOf(c) ?? {});
    return {
      id: c.id,
      model: c.model_hf_id ?? c.config_file,
      gpuMemoryGiB: c.gpu_memory_gib,
      method: options.method,
      engine: c.engine,
      publishedMaxTokens: c.published_max_tokens,
      estimatedMaxTokens: estimated,
      error: (estimated - c.published_max_tokens) / c.published_max_tokens,
      ...(c.reportedApart === undefined ? {} : { reportedApart: c.reportedApart }),
    };
  });
}

export function runValidate(file: string, json: boolean): number {
  const rows = calibrationRows(file);
  const summary = summaryTable(rows);
  // The max-context rows go with the shipped measured set, not with --cases informative.json.
  const maxContext = file === 'cases.json' ? maxContextRows() : [];
  // Preference / RL rows (calibration/rl-cases.json), by objective, also with the shipped set only.
  const rl = file === 'cases.json' ? rlRows() : [];
  const rlText = rl.length > 0 ? `\n\n${renderRlSection(rl).join('\n')}` : '';
  // vLLM startup logs: KV bytes per token (calibration/kv-cache.json), also with the shipped set only.
  const kvCache = file === 'cases.json' ? kvCacheRows() : [];
  const kvText = kvCache.length > 0 ? `\n\n${renderKvCacheSection(kvCache).join('\n')}` : '';
  process.stdout.write(
    json
      ? `${JSON.stringify(
          {
            rows,
            summary: summary.filter((s) => !s.group.startsWith('in-sample:')),
            inSampleSummary: summary.filter((s) => s.group.startsWith('in-sample:')),
            maxContext,
            rl,
            kvCache,
          },
          null,
          2,
        )}\n`
      : `${renderValidateText(rows, summary, maxContext)}${rlText}${kvText}\n`,
  );
  return 0;
}
