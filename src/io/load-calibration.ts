/** Read the shipped calibration cases and the config.json each one names. */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Arch } from '../core/model/index.js';
import { archFromHfConfig } from '../core/model/index.js';
import {
  calibrationFileSchema,
  kvCacheFileSchema,
  maxContextFileSchema,
  rlFileSchema,
  throughputFileSchema,
  type CalibrationCase,
  type KvCacheCase,
  type MaxContextCase,
  type RlCase,
  type ThroughputCase,
} from '../schema/calibration.js';
import type { z } from 'zod';
import { UserError, badValue } from './errors.js';
import { packagePath } from './paths.js';

export const CALIBRATION_DIR = packagePath('calibration/');

/** Read and validate one cases file of calibration/; `allowed` names the files `--cases` takes. */
function loadCases<T>(dir: string, file: string, schema: z.ZodType<T>, allowed: string): T {
  // --cases names a file of calibration/ (what the messages say): a path elsewhere is never read.
  if (!/^\w[\w.-]*\.json$/.test(file))
    throw badValue('--cases', file, `the name of a JSON file in calibration/: ${allowed}`);
  const path = join(dir, file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(
      `--cases: cannot read ${path} (${code ?? (e as Error).message}); expected a JSON file in calibration/: ${allowed}`,
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`${path}: ${issue.message} at ${issue.path.join('.') || '(root)'}`);
  }
  return parsed.data;
}

export function loadCalibrationCases(
  file = 'cases.json',
  dir = CALIBRATION_DIR,
): CalibrationCase[] {
  return loadCases(dir, file, calibrationFileSchema, 'cases.json or informative.json');
}

/** calibration/throughput.json: published measured speeds. */
export function loadThroughputCases(
  file = 'throughput.json',
  dir = CALIBRATION_DIR,
): ThroughputCase[] {
  return loadCases(dir, file, throughputFileSchema, 'throughput.json');
}

/** calibration/max-context.json: published longest sequences that fit a card. */
export function loadMaxContextCases(
  file = 'max-context.json',
  dir = CALIBRATION_DIR,
): MaxContextCase[] {
  return loadCases(dir, file, maxContextFileSchema, 'max-context.json');
}

/** calibration/kv-cache.json: KV pools vLLM printed at startup. */
export function loadKvCacheCases(file = 'kv-cache.json', dir = CALIBRATION_DIR): KvCacheCase[] {
  return loadCases(dir, file, kvCacheFileSchema, 'kv-cache.json');
}

/** calibration/rl-cases.json: published preference / RL measurements. */
export function loadRlCases(file = 'rl-cases.json', dir = CALIBRATION_DIR): RlCase[] {
  return loadCases(dir, file, rlFileSchema, 'rl-cases.json');
}

/** The architecture of a case, from the config.json shipped beside the cases. */
export function caseArch(
  c: Pick<CalibrationCase, 'config_file' | 'model_hf_id'>,
  dir = CALIBRATION_DIR,
): Arch {
  const path = join(dir, 'configs', c.config_file.replace(/^configs\//, ''));
  const config: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const id = c.model_hf_id ?? c.config_file.replace(/\.json$/, '');
  return archFromHfConfig(config, { id, hfId: c.model_hf_id });
}

/**
 * Where `--cases <file>` is: a file of calibration/ by name, or any other path (the rows `vramplan check --case`
 * writes), whose cases' config files are in configs/ beside it or else in calibration/configs/.
 */
export function casesLocation(file: string): { dir: string; name: string } {
  if (existsSync(join(CALIBRATION_DIR, file)) || !existsSync(file))
    return { dir: CALIBRATION_DIR, name: file };
  return { dir: dirname(resolve(file)), name: basename(file) };
}

/** caseArch for a case of the file in `dir`: its config beside the file, else the shipped one. */
export function caseArchIn(
  c: Pick<CalibrationCase, 'config_file' | 'model_hf_id'>,
  dir: string,
): Arch {
  const beside = join(dir, 'configs', c.config_file.replace(/^configs\//, ''));
  return caseArch(c, existsSync(beside) ? dir : CALIBRATION_DIR);
}
