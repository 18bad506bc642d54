// Every published measurement of calibration/ goes through `estimate` as a user would run it: the engine's
// defaults, what the engine runs (runs.ts), its rules and kernels, then the estimate. A measured run is a run
// the engine ran, so a scorable row is never refused; an informative row is either estimated or refused by a
// rule citing the engine's source at a tag or commit.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateChecks } from '../../src/commands/estimate-run.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { CALIBRATION_DIR, caseArch } from '../../src/io/load-calibration.js';
import { buildContextOf, calibrationRows } from '../../src/commands/validate-run.js';
import { findGpu, loadGpus } from '../../src/io/load-catalog.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';

interface Row {
  id: string;
  config_file: string;
  model_hf_id?: string | null;
  objective?: string;
  flags?: RawFlags;
  scorable?: boolean;
  why_not?: string | null;
  /** What the measured build ran beyond its flags: estimated with that build's context, as validate does. */
  loss_compile?: 'off';
  adam_impl?: 'foreach';
  grad_accum?: number;
  kbit_stream?: 'fp32';
  causal_loss?: 'shift-logits';
  lora_dropout?: number;
}

const rowsOf = (file: string): Row[] =>
  JSON.parse(readFileSync(join(CALIBRATION_DIR, file), 'utf8')) as Row[];

const configShipped = (r: Row): boolean =>
  existsSync(join(CALIBRATION_DIR, 'configs', r.config_file.replace(/^configs\//, '')));

const CATALOG_GPUS = new Set(loadGpus().flatMap((g) => [g.id, ...(g.aliases ?? [])]));
/** A row run on a GPU the catalog does not hold is carried unscored, as a row without its config.json is. */
const gpuInCatalog = (r: Row): boolean =>
  typeof r.flags?.gpu !== 'string' || CATALOG_GPUS.has(r.flags.gpu);

/** The estimate of a row as `vramplan estimate --model <its config> <its flags>` runs it (throws as the CLI does). */
function estimateRow(row: Row, metric: 'allocated' | 'reserved' | 'device' = 'allocated'): number {
  // A list (--lora-targets) is written as on the command line: comma-separated.
  const given = Object.entries(row.flags ?? {}).map(([k, v]) => [
    k,
    Array.isArray(v) ? v.join(',') : v,
  ]);
  const flags: RawFlags = {
    ...(row.objective ? { objective: row.objective } : {}),
    ...(Object.fromEntries(given) as RawFlags),
    ...(row.lora_dropout === undefined ? {} : { 'lora-dropout': row.lora_dropout }),
  };
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const gpu = typeof flags.gpu === 'string' ? findGpu(flags.gpu) : undefined;
  const arch = caseArch({ config_file: row.config_file, model_hf_id: row.model_hf_id ?? null });
  estimateChecks(arch, options, flags, gpu);
  const build = buildContextOf(row);
  const g = buildEstimate(arch, options, gpu, undefined, build).perGpu;
  return metric === 'allocated'
    ? g.allocatedBytes
    : metric === 'reserved'
      ? g.reservedBytes
      : g.deviceBytes;
}

// A source at a tag or commit (blob/tree/<tag or sha>), or an issue / pull request thread.
const SOURCE =
  /https:\/\/github\.com\/[^/\s]+\/[^/\s]+\/((blob|tree)\/(v?\d[\w.-]*|[0-9a-f]{7,40})\/|(issues|pull)\/\d+)/;

const MEASURED = [
  'cases.json',
  'throughput.json',
  'max-context.json',
  'kv-cache.json',
  'rl-cases.json',
];

describe('every calibration row runs through estimate', () => {
  for (const file of MEASURED) {
    const rows = rowsOf(file).filter(
      (r) => r.flags !== undefined && configShipped(r) && gpuInCatalog(r),
    );
    it(`${file}: all ${rows.length} rows with settings are estimated, none refused`, () => {
      expect(rows.length).toBeGreaterThan(0);
      const refused: string[] = [];
      for (const row of rows) {
        try {
          expect(estimateRow(row)).toBeGreaterThan(0);
        } catch (e) {
          refused.push(`${row.id}: ${(e as Error).message}`);
        }
      }
      expect(refused).toEqual([]);
    });
  }

  it('a row on a GPU the catalog does not hold is unscored and says why', () => {
    const missing = [...MEASURED, 'informative.json']
      .flatMap((f) => rowsOf(f))
      .filter((r) => !gpuInCatalog(r));
    for (const r of missing) {
      expect(r.scorable, r.id).toBe(false);
      expect(r.why_not, r.id).toMatch(/not in the catalog/);
    }
  });

  it('a row whose config.json is not shipped is unscored and says why', () => {
    const missing = [...MEASURED, 'informative.json']
      .flatMap((f) => rowsOf(f))
      .filter((r) => !configShipped(r));
    for (const r of missing) {
      expect(r.scorable, r.id).toBe(false);
      expect(r.why_not, r.id).toMatch(/config/);
    }
  });

  it('informative.json: each row is estimated, or refused with its engine source and kept unscored', () => {
    const rows = rowsOf('informative.json').filter((r) => r.flags !== undefined);
    let estimated = 0;
    const unsourced: string[] = [];
    for (const row of rows) {
      try {
        estimateRow(row);
        estimated++;
      } catch (e) {
        const msg = (e as Error).message;
        // A refusal of the model's own limits (its positions) names the config field instead of a URL.
        const sourced = SOURCE.test(msg) || /max_position_embeddings|rope-scaled/.test(msg);
        if (!sourced || row.scorable !== false || !row.why_not) unsourced.push(`${row.id}: ${msg}`);
      }
    }
    expect(unsourced).toEqual([]);
    expect(estimated).toBeGreaterThan(rows.length * 0.85);
  });

  it('the measurements the issue names are estimated, not refused', () => {
    const byId = new Map(MEASURED.flatMap((f) => rowsOf(f)).map((r) => [r.id, r] as const));
    for (const id of [
      'torchtune-gen-01', // tune run generate
      'litgpt-inf-01', // litgpt generate
      'litgpt-dec-l7', // LitGPT decode speed
      'llamacpp-19053-pro6000-gptoss-20b', // llama.cpp MXFP4
      'unsloth-ctx-8b-24gb', // Unsloth with --attention flash
      'torchtune-flags-02', // torchtune from a Llama config.json
    ]) {
      const row = byId.get(id);
      expect(row, id).toBeDefined();
      expect(estimateRow(row!)).toBeGreaterThan(0);
    }
  });

  it('estimate gives each scored memory row the bytes validate scores', () => {
    const rows = new Map(rowsOf('cases.json').map((r) => [r.id, r] as const));
    const differ: string[] = [];
    for (const v of calibrationRows('cases.json')) {
      const got = estimateRow(rows.get(v.id)!, v.metric);
      if (got !== v.estimatedBytes)
        differ.push(`${v.id}: estimate ${got}, validate ${v.estimatedBytes}`);
    }
    expect(differ).toEqual([]);
  });
});
