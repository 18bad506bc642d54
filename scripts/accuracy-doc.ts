/**
 * The generated tables of docs/accuracy.md: runs the code behind `vramplan validate` (calibrationRows, summaryTable)
 * and `vramplan validate --throughput` (throughputRows, throughputSummaries) in-process and writes their summaries
 * between the marker comments, beside the check's time bands (TIME_UNCERTAINTY). Everything outside the markers is
 * left as it is. test/docs/accuracy-doc.test.ts fails when the page differs from what this writes now. It also
 * rewrites the error column of docs/time-model.md's "Known misses" table from the same rows (refreshKnownMisses).
 *
 *   npm run docs:accuracy        # rewrites the generated part of docs/accuracy.md
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calibrationRows } from '../src/commands/validate-run.js';
import { throughputRows } from '../src/commands/validate-throughput.js';
import { TIME_UNCERTAINTY } from '../src/core/check/index.js';
import { summaryTable, type ErrorSummary } from '../src/core/memory/index.js';
import {
  throughputSummaries,
  type ThroughputRow,
  type ThroughputSummary,
} from '../src/core/time/accuracy.js';

export const BEGIN = '<!-- generated: npm run docs:accuracy -->';
export const END = '<!-- end generated -->';
export const DOC = fileURLToPath(new URL('../docs/accuracy.md', import.meta.url));
export const TIME_DOC = fileURLToPath(new URL('../docs/time-model.md', import.meta.url));
const MISSES = '## Known misses';

/** The kinds in the order the page lists them (the check's bands are per kind). */
const KINDS = ['training', 'rl', 'decode', 'serving'] as const;

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
/** A signed percentage, "0.0%" where it rounds to nothing. */
function signedPct(x: number): string {
  const s = Math.abs(x * 100).toFixed(1);
  return s === '0.0' ? '0.0%' : `${x < 0 ? '−' : '+'}${s}%`;
}
const cell = (s: string): string => s.replace(/\|/g, '\\|');

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ];
}

/** The summaries whose group starts with `prefix`, each labelled by the rest of its group name. */
function groupsOf<S extends { group: string }>(
  summary: readonly S[],
  prefix: string,
): [string, S][] {
  return summary
    .filter((s) => s.group.startsWith(prefix))
    .map((s): [string, S] => [s.group.slice(prefix.length), s]);
}

function memoryRow(label: string, s: ErrorSummary): string[] {
  return [
    label,
    String(s.count),
    pct(s.medianAbsError),
    pct(s.p90AbsError),
    signedPct(s.meanError),
  ];
}

const MEMORY_HEAD = ['group', 'cases', 'median abs. error', 'p90 abs. error', 'mean error'];
const TIME_HEAD = ['group', 'cases', 'median abs. error', 'p90 abs. error', 'within 20%'];

function memorySection(): string[] {
  const summary = summaryTable(calibrationRows('cases.json'));
  const out = summary.filter((s) => !s.group.startsWith('in-sample:'));
  const inSample = groupsOf(summary, 'in-sample:');
  const rowsBy = (prefix: string) => groupsOf(out, prefix).map(([k, s]) => memoryRow(k, s));
  const all = out.find((s) => s.group === 'all')!;
  return [
    `### Memory (\`vramplan validate\`, calibration/cases.json)`,
    '',
    `${all.count} scorable measured peaks out of sample; ${inSample.length > 0 ? `the in-sample rows are in the last table` : 'none is in sample'}. Mean error is signed (negative: under-estimated).`,
    '',
    ...table(['metric', ...MEMORY_HEAD.slice(1)], [memoryRow('all', all), ...rowsBy('metric:')]),
    '',
    ...table(['kind', ...MEMORY_HEAD.slice(1)], rowsBy('kind:')),
    '',
    ...table(['framework', ...MEMORY_HEAD.slice(1)], rowsBy('framework:')),
    ...(inSample.length > 0
      ? [
          '',
          ...table(
            ['in sample', ...MEMORY_HEAD.slice(1)],
            inSample.map(([k, s]) => memoryRow(k, s)),
          ),
        ]
      : []),
  ];
}

function timeRow(label: string, s: ThroughputSummary, extra: readonly string[] = []): string[] {
  return [
    label,
    String(s.count),
    pct(s.medianAbsError),
    pct(s.p90AbsError),
    pct(s.within20),
    ...extra,
  ];
}

/** Per kind, each p90 beside the check's band that follows it (src/core/check/compare.ts TIME_UNCERTAINTY). */
function kindTable(out: readonly ThroughputSummary[]): string[] {
  const byGroup = new Map(out.map((s) => [s.group, s]));
  const rows = [timeRow('all', byGroup.get('all')!, ['–'])];
  for (const k of KINDS) {
    const s = byGroup.get(`kind:${k}`);
    if (s !== undefined) rows.push(timeRow(k, s, [TIME_UNCERTAINTY[k].toFixed(2)]));
  }
  return table(['kind', ...TIME_HEAD.slice(1), 'check band (TIME_UNCERTAINTY)'], rows);
}

function inSampleRows(rows: readonly ThroughputRow[]): string[] {
  const ins = rows
    .filter((r) => r.inSample)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return table(
    ['in-sample row', 'kind', 'error'],
    ins.map((r) => [r.id, r.kind, signedPct(r.error)]),
  );
}

let rowsRead: ThroughputRow[] | undefined;
/** The rows of `validate --throughput`, computed once a process: both pages (and their test) read them. */
export const scoredRows = (): ThroughputRow[] => (rowsRead ??= throughputRows('throughput.json'));

function throughputSection(): string[] {
  const rows = scoredRows();
  const summary = throughputSummaries(rows);
  const out = summary.filter((s) => !s.group.startsWith('in-sample:'));
  const ins = summary.filter((s) => s.group.startsWith('in-sample:'));
  const rowsBy = (list: readonly ThroughputSummary[], prefix: string) =>
    groupsOf(list, prefix).map(([k, s]) => timeRow(k, s));
  const all = out.find((s) => s.group === 'all')!;
  const inAll = ins.find((s) => s.group === 'in-sample:all');
  return [
    `### Time (\`vramplan validate --throughput\`, calibration/throughput.json)`,
    '',
    `${all.count} scorable published speeds out of sample (a latency or an RL step time is scored as the speed it implies). The check band is the ± band \`check\` gives a measured time of that kind (src/core/check/compare.ts \`TIME_UNCERTAINTY\`): the kind's p90, rounded up.`,
    '',
    ...kindTable(out),
    '',
    'Decode and serving rows per engine and per kernel family (the quant format, or the dtype):',
    '',
    ...table(['engine', ...TIME_HEAD.slice(1)], rowsBy(out, 'engine:')),
    '',
    ...table(['kernel', ...TIME_HEAD.slice(1)], rowsBy(out, 'kernel:')),
    '',
    'Per source (the GitHub repository, else the site):',
    '',
    ...table(['source', ...TIME_HEAD.slice(1)], rowsBy(out, 'source:')),
    '',
    `#### In sample, apart from the figures above`,
    '',
    inAll === undefined
      ? 'No row is in sample.'
      : `${inAll.count} rows are in sample: a model constant was worked out from their own numbers (each row's \`in_sample_why\` in calibration/throughput.json).`,
    ...(inAll === undefined
      ? []
      : [
          '',
          ...table(
            ['kind', ...TIME_HEAD.slice(1)],
            [timeRow('all', inAll), ...rowsBy(ins, 'in-sample:kind:')],
          ),
          '',
          ...table(['source', ...TIME_HEAD.slice(1)], rowsBy(ins, 'in-sample:source:')),
          '',
          ...inSampleRows(rows),
        ]),
  ];
}

/** The generated part of docs/accuracy.md, markers excluded. */
export function accuracyTables(): string {
  return [...memorySection(), '', ...throughputSection()].join('\n');
}

/** `doc` with the text between its markers replaced by `tables`; throws unless each marker occurs exactly once, in order. */
export function spliceGenerated(doc: string, tables: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < b || doc.indexOf(BEGIN, b + 1) >= 0 || doc.indexOf(END, e + 1) >= 0)
    throw new Error(`docs/accuracy.md needs one "${BEGIN}" followed by one "${END}"`);
  return `${doc.slice(0, b + BEGIN.length)}\n\n${tables}\n\n${doc.slice(e)}`;
}

/** The text between the markers, as spliceGenerated writes it. */
export function generatedPart(doc: string): string {
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < b) throw new Error(`docs/accuracy.md has no "${BEGIN}" ... "${END}"`);
  return doc
    .slice(b + BEGIN.length, e)
    .replace(/^\n\n/, '')
    .replace(/\n\n$/, '');
}

/** A signed percentage in ASCII, as the known-misses table writes it ("+541.7%", "-40.2%"). */
const asciiPct = (x: number): string => `${x < 0 ? '-' : '+'}${Math.abs(x * 100).toFixed(1)}%`;

/**
 * `doc` (docs/time-model.md) with each "Known misses" row's error cell (`| \`id\` | error | ... |`) set to the row's
 * error in `rows`; rows not scored there keep theirs. Throws unless the page has that part.
 */
export function refreshKnownMisses(doc: string, rows: readonly ThroughputRow[]): string {
  const at = doc.indexOf(`\n${MISSES}\n`);
  if (at < 0) throw new Error(`docs/time-model.md has no "${MISSES}" part`);
  const next = doc.indexOf('\n## ', at + MISSES.length + 2);
  const end = next < 0 ? doc.length : next;
  const error = new Map(rows.filter((r) => !r.inSample).map((r) => [r.id, r.error]));
  const part = doc.slice(at, end).replace(/^\| `([^`]+)` \| [^|]+ \|/gm, (line, id: string) => {
    const e = error.get(id);
    return e === undefined ? line : `| \`${id}\` | ${asciiPct(e)} |`;
  });
  return doc.slice(0, at) + part + doc.slice(end);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(DOC, spliceGenerated(readFileSync(DOC, 'utf8'), accuracyTables()));
  writeFileSync(TIME_DOC, refreshKnownMisses(readFileSync(TIME_DOC, 'utf8'), scoredRows()));
  process.stdout.write(
    'wrote the generated tables of docs/accuracy.md and the known misses of docs/time-model.md\n',
  );
}
