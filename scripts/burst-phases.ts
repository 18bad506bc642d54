/**
 * Where a saturated burst's time goes, against the client's own means: for every scored burst row
 * (`batch_latency_s`) whose quote prints `vllm bench serve`'s or `sglang.bench_serving`'s mean TTFT and mean TPOT,
 * the run `validate --throughput` scores (time/length-spread.ts: the dataset's lengths where the row names one, else
 * every request at the means) with its mean TTFT and mean TPOT (each request's (last token - first token) /
 * (output - 1)), and the ratios measured / estimated of the duration, the TTFT and the TPOT. A ratio over 1 is a phase
 * the estimate runs too fast. Rows past STEPPED_BURST_MAX_REQUESTS are left out (the scorer extrapolates them). An
 * analysis tool, not a test; docs/time-model.md ("Saturated bursts on one H100: the phases against the client's
 * means") reads its table.
 *
 *   npx tsx scripts/burst-phases.ts [ID_REGEX]
 */
import { caseInputs } from '../src/commands/validate-throughput.js';
import { loadThroughputCases } from '../src/io/load-calibration.js';
import { loadDataset } from '../src/io/load-catalog.js';
import { spreadBatchSeconds, type LengthShape } from '../src/core/time/length-spread.js';
import { STEPPED_BURST_MAX_REQUESTS, steppedRunOf } from '../src/core/time/stepped-burst.js';
import { outputTokensOf, promptTokensOf } from '../src/schema/estimate.js';
import type { ThroughputCase } from '../src/schema/calibration.js';

/** The quote's mean TTFT and mean TPOT in ms: "Mean TTFT (ms): x", a result file's mean_ttft_ms, or a table's cells. */
export function quotedMeans(quote: string): { ttftMs: number; tpotMs: number } | undefined {
  const num = (re: RegExp): number | undefined => {
    const m = re.exec(quote);
    return m === null ? undefined : Number(m[1]);
  };
  const ttft = num(/Mean TTFT \(ms\):\s*([\d.]+)/) ?? num(/mean_ttft_ms"?:\s*([\d.]+)/);
  const tpot = num(/Mean TPOT \(ms\):\s*([\d.]+)/) ?? num(/mean_tpot_ms"?:\s*([\d.]+)/);
  if (ttft !== undefined && tpot !== undefined) return { ttftMs: ttft, tpotMs: tpot };
  // A table whose header ends "Throughput (tok/s) | Mean TTFT (ms) | Mean TPOT (ms) |", then the row's cells.
  const head = 'Throughput (tok/s) | Mean TTFT (ms) | Mean TPOT (ms) |';
  const at = quote.lastIndexOf(head);
  if (at < 0) return undefined;
  const cells = quote
    .slice(at + head.length)
    .split('|')
    .map((x) => x.trim())
    .filter((x) => x !== '');
  const [t, p] = [parseFloat(cells[2] ?? ''), parseFloat(cells[3] ?? '')];
  return Number.isFinite(t) && Number.isFinite(p) ? { ttftMs: t, tpotMs: p } : undefined;
}

interface Phases {
  id: string;
  gpu: string;
  gpus: number;
  engine: string;
  duration: number;
  ttft: number;
  tpot: number;
}

function phasesOf(c: ThroughputCase): Phases | undefined {
  const means = quotedMeans(typeof c.quote === 'string' ? c.quote : '');
  if (means === undefined || c.metric !== 'batch_latency_s' || c.scorable === false)
    return undefined;
  const { options, time, gpu, arch, facts } = caseInputs(c);
  if (facts.poolTokens === undefined || options.batch > STEPPED_BURST_MAX_REQUESTS)
    return undefined;
  const pool = {
    poolTokens: facts.poolTokens,
    ...(c.max_num_seqs === undefined ? {} : { maxNumSeqs: c.max_num_seqs }),
  };
  const run = steppedRunOf(options, gpu, time, facts.pool, pool);
  if (run === undefined) return undefined;
  const [prompt, out] = [promptTokensOf(options), outputTokensOf(options)];
  let shape: LengthShape = { levels: [0, 100], prompt: [prompt, prompt], output: [out, out] };
  let spread = 0;
  if (c.dataset !== undefined) {
    const d = loadDataset(c.dataset.name);
    const sampler = d.samplers[c.dataset.sampler];
    if (sampler === undefined) return undefined;
    shape = { levels: d.levels, ...sampler };
    spread = 1;
  }
  const b = spreadBatchSeconds(arch, options, gpu, time, shape, run, spread);
  const ttft = b.burst.ttftSumSeconds / options.batch;
  const tpot = b.burst.tpotRequests > 0 ? b.burst.tpotSumSeconds / b.burst.tpotRequests : 0;
  return {
    id: c.id,
    gpu: String(c.flags.gpu),
    gpus: typeof c.gpus === 'number' ? c.gpus : 1,
    engine: options.framework,
    duration: c.measured_value / b.seconds,
    ttft: means.ttftMs / 1000 / ttft,
    tpot: tpot > 0 ? means.tpotMs / 1000 / tpot : NaN,
  };
}

function main(): void {
  const only = process.argv[2] === undefined ? undefined : new RegExp(process.argv[2]);
  const rows = loadThroughputCases()
    .filter((c) => only === undefined || only.test(c.id))
    .map(phasesOf)
    .filter((r): r is Phases => r !== undefined);
  const f = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '-');
  console.log('| row | GPU | engine | duration | mean TTFT | mean TPOT |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const r of rows)
    console.log(
      `| \`${r.id}\` | ${r.gpus} x ${r.gpu} | ${r.engine} | ${f(r.duration)} | ${f(r.ttft)} | ${f(r.tpot)} |`,
    );
}

main();
