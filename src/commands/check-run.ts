/**
 * Body of `vramplan check`: read the plan and what the run measured, compare per component, print; with
 * --case, write the run as calibration rows (and the model's config.json beside them, as calibration/ holds it).
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  caseConfigFile,
  caseRows,
  checkRun,
  observe,
  runPlanOf,
  type CheckResult,
  type Observed,
  type RunRecord,
} from '../core/check/index.js';
import { engineOf } from '../core/engines/engine.js';
import { formatName, mergeFlags } from '../core/from/index.js';
import { UserError } from '../io/errors.js';
import { readFromConfig } from '../io/from/read.js';
import { findGpu } from '../io/load-catalog.js';
import { listModels } from '../io/load-model.js';
import { readRunPlan, readRunRecord, recordOfLogs } from '../io/read-run.js';
import { writeAtomic } from '../io/write-atomic.js';
import type { RunPlan } from '../schema/measured.js';
import type { RawFlags } from '../schema/flags.js';
import { renderCheckText } from '../ui/check-text.js';
import { launchInputFromFlags } from './launch-run.js';
import { onlineModel } from './online-model.js';

/** Exit codes (docs/check.md): inside the band, outside it; bad input is 1 as everywhere. */
export const CHECK_EXIT = { inside: 0, outside: 3 } as const;

export interface CheckFlags {
  logs: string[];
  /** --case: true (default file), a path, or undefined. */
  case: string | true | undefined;
  json: boolean;
  force: boolean;
}

const COMPONENTS_OF = (plan: RunPlan) =>
  plan.flags.method === 'inference'
    ? ['allocated', 'reserved', 'device', 'time to first token', 'time per output token']
    : ['allocated', 'reserved', 'device', 'step time', 'tokens/s per GPU'];

/** The model's config.json as calibration/configs holds it: the catalog entry's, or the local file's. */
function modelConfig(plan: RunPlan): unknown {
  const entry = listModels().find((m) => m.id === plan.model.id);
  if (entry) return entry.config;
  const ref = plan.model.ref;
  const file = existsSync(ref) && statSync(ref).isDirectory() ? join(ref, 'config.json') : ref;
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  throw new UserError(
    `--case: the model '${plan.model.ref}' is neither a catalog id nor a local config.json; expected one of them so the case can carry its config`,
  );
}

function writeCase(plan: RunPlan, seen: Observed, file: string, probe: string, force: boolean) {
  const date = new Date().toISOString().slice(0, 10);
  const rows = caseRows(plan, seen, { date, probe });
  if (rows.length === 0)
    throw new UserError(
      '--case: the run measured no memory figure (allocated, reserved or device); nothing written',
    );
  const config = modelConfig(plan);
  const configPath = join(dirname(file), 'configs', caseConfigFile(plan));
  writeAtomic(file, `${JSON.stringify(rows, null, 1)}\n`, { force });
  if (!existsSync(configPath)) {
    mkdirSync(dirname(configPath), { recursive: true });
    writeAtomic(configPath, `${JSON.stringify(config, null, 2)}\n`);
  }
  return { file, rows: rows.length, configPath };
}

function report(
  title: string,
  plan: RunPlan,
  record: RunRecord,
  where: string,
  f: CheckFlags,
): number {
  const gpu = findGpu(String(plan.flags.gpu));
  const seen = observe(plan, record);
  const result: CheckResult = checkRun(plan, seen, gpu.name);
  if (result.rows.length === 0)
    throw new UserError(
      `check: nothing to compare: the record has none of ${COMPONENTS_OF(plan).join(', ')}; expected a measured.json from vramplan_probe.py or a --log with the engine's memory or speed lines`,
    );
  const measured = new Set(result.rows.map((r) => r.component as string));
  const notMeasured = COMPONENTS_OF(plan).filter((c) => !measured.has(c));
  let caseNote = '';
  if (f.case !== undefined) {
    const file = f.case === true ? join(where, 'vramplan-case.json') : resolve(f.case);
    const probe = record.measured?.probe ?? (record.ranks.length ? 'trainer-callback' : 'log');
    const w = writeCase(plan, seen, file, probe, f.force);
    caseNote = `wrote ${w.rows} calibration row(s) to ${w.file}; score them: vramplan validate --cases ${w.file}`;
  }
  if (f.json)
    process.stdout.write(
      `${JSON.stringify({ plan, observed: seen, ...result, notMeasured, ...(caseNote ? { case: caseNote } : {}) }, null, 2)}\n`,
    );
  else
    process.stdout.write(
      `${renderCheckText(title, result, notMeasured)}${caseNote ? `\n${caseNote}` : ''}\n`,
    );
  return result.inside ? CHECK_EXIT.inside : CHECK_EXIT.outside;
}

/** `vramplan check <folder>`: a launch folder's plan against what its probe recorded. */
export function runCheckFolder(dir: string, f: CheckFlags): number {
  const plan = readRunPlan(dir);
  const record = readRunRecord(dir, f.logs);
  const title = `check of ${dir}: ${plan.engine}, ${plan.model.id} ${String(plan.flags.method)} on ${String(plan.flags.gpus ?? 1)} x ${findGpu(String(plan.flags.gpu)).name}`;
  return report(title, plan, record, dir, f);
}

/** `vramplan check --from <config> --gpu <id> --log <file>`: a folder the user wrote, read by a `--from` reader. */
export async function runCheckFrom(
  file: string,
  model: unknown,
  cliFlags: RawFlags,
  f: CheckFlags,
): Promise<number> {
  if (f.logs.length === 0)
    throw new UserError(
      "--log: missing; expected the run's trainer log or a /metrics dump (e.g. --log train.log)",
    );
  if (typeof cliFlags.gpu !== 'string')
    throw new UserError('--gpu: required with --from', "See 'vramplan catalog gpus' for ids.");
  const config = readFromConfig(file);
  const spec = typeof model === 'string' ? model : config.model;
  if (spec === null)
    throw new UserError(
      `--model: missing; ${file} (${formatName(config.format)}) names no model: give --model <catalog id | Hugging Face id | config.json>`,
    );
  const flags = mergeFlags(config, cliFlags) as RawFlags;
  const resolved = await onlineModel(spec);
  const input = launchInputFromFlags(resolved, flags, {
    gradAccum: flags['grad-accum'] === undefined ? undefined : String(flags['grad-accum']),
    powerLimit: undefined,
    sharding: undefined,
    out: '.',
    force: false,
  });
  const plan = runPlanOf(input, engineOf(input.options), []);
  const record: RunRecord = { measured: null, ranks: [], ...recordOfLogs(f.logs) };
  const title = `check of ${f.logs.join(', ')} against ${file} (${formatName(config.format)}): ${plan.engine}, ${plan.model.id} on ${input.gpu.name}`;
  return report(title, plan, record, '.', f);
}
