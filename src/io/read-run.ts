/**
 * Read what a launched run left in its folder: the plan (vramplan-plan.json), the probe's measured.json, the
 * Trainer callback's measured.rank<N>.json, the run's log and the servers' metrics. Errors name the file and
 * the field.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import {
  parseSamples,
  parseTrainLog,
  servingEngineOf,
  servingFigures,
  type RunRecord,
} from '../core/check/index.js';
import {
  MEASURED_FILE,
  RUN_PLAN_FILE,
  measuredSchema,
  rankRecordSchema,
  runPlanSchema,
  type RunPlan,
} from '../schema/measured.js';
import { UserError } from './errors.js';

const readText = (file: string, what: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(
      `${what}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
    );
  }
};

function parseWith<T>(file: string, schema: z.ZodType<T>, expected: string): T {
  let raw: unknown;
  try {
    raw = JSON.parse(readText(file, 'check'));
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${file}: not JSON (${(e as Error).message}); expected ${expected}`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}; expected ${expected}`,
    );
  }
  return parsed.data;
}

export function readRunPlan(dir: string): RunPlan {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UserError(
      `check: got '${dir}'; expected a launch folder written by 'vramplan launch' (or --from <config> --log <file>)`,
    );
  const file = join(dir, RUN_PLAN_FILE);
  if (!existsSync(file))
    throw new UserError(
      `check: ${dir} has no ${RUN_PLAN_FILE}; expected a launch folder written by 'vramplan launch' (for your own folder: vramplan check --from <config> --gpu <id> --log <file>)`,
    );
  return parseWith(file, runPlanSchema, `the ${RUN_PLAN_FILE} 'vramplan launch' writes`);
}

/** A log or metrics file: a training log, or Prometheus text when it carries an engine's serving metrics. */
export function recordOfLogs(files: readonly string[]): Pick<RunRecord, 'log' | 'serving'> {
  let trainText = '';
  let metricsText = '';
  for (const f of files) {
    const text = readText(f, '--log');
    if (servingEngineOf(parseSamples(text)) !== null) metricsText += `${text}\n`;
    else trainText += `${text}\n`;
  }
  return {
    log: trainText ? parseTrainLog(trainText) : null,
    serving: metricsText ? servingFigures(metricsText) : null,
  };
}

/** Everything the run left in `dir`, plus `extraLogs` (--log). */
export function readRunRecord(dir: string, extraLogs: readonly string[]): RunRecord {
  const measuredFile = join(dir, MEASURED_FILE);
  const measured = existsSync(measuredFile)
    ? parseWith(measuredFile, measuredSchema, "the measured.json 'vramplan_probe.py' writes")
    : null;
  const ranks = readdirSync(dir)
    .filter((f) => /^measured\.rank\d+\.json$/.test(f))
    .sort()
    .map((f) =>
      parseWith(join(dir, f), rankRecordSchema, "the record 'attach_probe(trainer)' writes"),
    );
  const logs = [
    ...(measured?.log ? [join(dir, measured.log)] : []),
    ...(measured?.metrics ? [join(dir, measured.metrics)] : []),
  ].filter((f) => existsSync(f));
  if (measured === null && ranks.length === 0 && extraLogs.length === 0)
    throw new UserError(
      `check: ${dir} has no ${MEASURED_FILE} yet; run the plan through the probe first (see "Check the run" in its README.md: python3 vramplan_probe.py run -- <command>)`,
    );
  return { measured, ranks, ...recordOfLogs([...logs, ...extraLogs]) };
}
