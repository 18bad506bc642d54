/**
 * Configurations that engines' own recipes and published benchmarks run (test/fixtures/published/cases.json),
 * each estimated the way `vramplan estimate` does: flags, or `--from <the recipe's own file>` with the flags
 * given beside it. A case is estimated (finite figures) or refused with the message the user sees.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { admitFromPool } from '../../src/commands/from-pool.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { archOfFrom, checkpointWeightsInto, mergeFlags } from '../../src/core/from/index.js';
import { inFromConfig, readFromConfig } from '../../src/io/from/read.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { RawFlags } from '../../src/schema/flags.js';

export const PUBLISHED = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'fixtures',
  'published',
);

export interface PublishedCase {
  id: string;
  /** Where the configuration is published: a URL at a commit, or an issue/discussion. */
  source: string;
  /** The recipe's own file, relative to test/fixtures/published. */
  from?: string;
  /** A catalog id: the model the recipe runs, where the file names none or a checkpoint the catalog lacks. */
  model?: string;
  /** `estimate` flags (beside `from`, they win as on the command line). */
  flags: Record<string, string | number | boolean>;
  /** What the recipe runs that the flags cannot say, or why a refusal stands. */
  note?: string;
  /**
   * The verdict the table expects (cases-pasted.json): finite figures, a refusal citing the engine's source, or a
   * model the catalog does not hold (a reader error naming --model).
   */
  expect?: 'estimated' | 'refused' | 'not-in-catalog';
}

export interface PublishedOutcome {
  id: string;
  /** null when estimated with finite figures. */
  refusal: string | null;
  /** Peak device memory per GPU (GiB) and the fit verdict, when estimated. */
  deviceGiB?: number;
  fits?: boolean | null;
  tokensPerSecondPerGpu?: number;
}

/** The cases of a table under test/fixtures/published (cases.json unless named). */
export const publishedCases = (table = 'cases.json'): PublishedCase[] =>
  JSON.parse(readFileSync(join(PUBLISHED, table), 'utf8')) as PublishedCase[];

const finite = (v: unknown): boolean => {
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(finite);
  if (v && typeof v === 'object') return Object.values(v).every(finite);
  return true;
};

/** Whether an `estimate --json` result's per-GPU figures and time are all finite numbers. */
export const finiteEstimate = (r: { perGpu: unknown; time?: unknown }): boolean =>
  finite(r.perGpu) && finite(r.time ?? {});

/** Swaps stdout's write for a collector; `restore` puts it back. */
function captureStdout(): { text: () => string; restore: () => void } {
  let out = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((s: string) => {
    out += s;
    return true;
  }) as typeof process.stdout.write;
  return { text: () => out, restore: () => void (process.stdout.write = write) };
}

/** What `run` writes to stdout (an in-process `estimate --json`); stdout is restored after, also when it throws. */
export function stdoutOf(run: () => void): string {
  const c = captureStdout();
  try {
    run();
    return c.text();
  } finally {
    c.restore();
  }
}

/** stdoutOf for a command that runs asynchronously (`estimate --from`, `plan --from`). */
export async function stdoutOfAsync(run: () => Promise<unknown>): Promise<string> {
  const c = captureStdout();
  try {
    await run();
    return c.text();
  } finally {
    c.restore();
  }
}

function estimateJson(c: PublishedCase): string {
  return stdoutOf(() => {
    const cli = c.flags as RawFlags;
    if (!c.from) {
      runEstimate(resolveModel(c.model!), cli, true);
      return;
    }
    const file = join(PUBLISHED, c.from);
    const config = readFromConfig(file);
    const flags = mergeFlags(config, cli);
    const arch = archOfFrom(config, resolveModel(c.model ?? config.model!), flags.seq);
    checkpointWeightsInto(config, cli, flags, arch);
    // The batch the server runs at once on the GPU, as `estimate --from` takes it (commands/from-pool.ts).
    if (typeof flags.gpu === 'string') admitFromPool(config, cli, flags, arch, findGpu(flags.gpu));
    inFromConfig(config, cli, () =>
      runEstimate(arch, flags as RawFlags, true, {
        from: { file, format: config.format, deepspeed: config.deepspeedFile },
        warnings: config.warnings,
        ...(config.build ? { build: config.build } : {}),
      }),
    );
  });
}

export function runPublished(c: PublishedCase): PublishedOutcome {
  let text: string;
  try {
    text = estimateJson(c);
  } catch (e) {
    return { id: c.id, refusal: (e as Error).message };
  }
  const r = JSON.parse(text) as {
    perGpu: { deviceBytes: number };
    fits?: boolean | null;
    time?: { tokensPerSecondPerGpu?: number };
  };
  if (!finiteEstimate(r)) return { id: c.id, refusal: 'non-finite figure in the estimate' };
  return {
    id: c.id,
    refusal: null,
    deviceGiB: r.perGpu.deviceBytes / 2 ** 30,
    fits: r.fits ?? null,
    ...(r.time?.tokensPerSecondPerGpu !== undefined
      ? { tokensPerSecondPerGpu: r.time.tokensPerSecondPerGpu }
      : {}),
  };
}

/** A refusal's cited source: a file or tree at a tag or commit, an issue or pull request, or a PyPI release. */
export const CITED_SOURCE =
  /https:\/\/(github\.com\/[^/\s]+\/[^/\s]+\/((blob|tree)\/(v?\d[\w.-]*|[0-9a-f]{7,40})\/|(issues|pull)\/\d+)|pypi\.org\/project\/[\w-]+\/[\d.]+\/)/;
/** Where a case is published: a file at a commit, or an issue, pull request or discussion as owner/repo#N. */
export const PUBLISHED_AT =
  /^(https:\/\/github\.com\/[^/\s]+\/[^/\s]+\/blob\/[0-9a-f]{40}\/\S+|[\w.-]+\/[\w.-]+#\d+)$/;

/**
 * The cases whose outcome is not the verdict the table gives them (`id (expect): what happened`): estimated means
 * finite figures; refused, a one-line refusal naming the value it got and citing the engine's source; not in the
 * catalog, a reader error naming --model.
 */
export function wrongVerdicts(
  cases: PublishedCase[],
  outcome: (id: string) => PublishedOutcome,
): string[] {
  return cases
    .map((c) => ({ c, o: outcome(c.id) }))
    .filter(({ c, o }) => {
      if (o.refusal !== null && o.refusal.includes('\n')) return true;
      if (c.expect === 'estimated') return o.refusal !== null || !Number.isFinite(o.deviceGiB);
      if (c.expect === 'refused')
        return !(o.refusal && CITED_SOURCE.test(o.refusal) && /: got /.test(o.refusal));
      return !(o.refusal && /^--model: got '/.test(o.refusal));
    })
    .map(({ c, o }) => `${c.id} (${c.expect}): ${o.refusal ?? 'estimated'}`);
}
