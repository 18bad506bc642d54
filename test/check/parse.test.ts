/**
 * The run check reads real engine output: logs and /metrics dumps copied from the engines' docs and issues
 * (test/fixtures/check/SOURCES.md). Expected figures are worked out by hand from the fixture lines.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fallbackLines, parseTrainLog } from '../../src/core/check/logs.js';
import { parseScrapes, servingFigures } from '../../src/core/check/prometheus.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/check/${name}`, import.meta.url), 'utf8');
const GiB = 1024 ** 3;

describe('training logs', () => {
  it("torchtune's metric logger: the largest peak_memory_alloc / _reserved (GiB) and the median tokens/s", () => {
    const f = parseTrainLog(fixture('torchtune-pr2406.log'));
    expect(f.format).toBe('torchtune');
    expect(f.steps).toBe(6);
    // Step 6: peak_memory_alloc 57.90928649902344 GiB, the largest of the six.
    expect(f.allocatedBytes).toBeCloseTo(57.90928649902344 * GiB, 0);
    expect(f.reservedBytes).toBeCloseTo(57.90928649902344 * GiB, 0);
    // Sorted tokens/s: 23.67 40.13 45.42 45.71 46.73 55.78 -> median (45.42 + 45.71) / 2.
    expect(f.tokensPerSecondPerGpu).toBeCloseTo((45.4216423034668 + 45.71133041381836) / 2, 6);
    expect(f.stepSeconds).toBeNull();
  });

  it("torchtitan's step line: memory is the reserved peak in GiB, tps the per-device counter", () => {
    const f = parseTrainLog(fixture('torchtitan-pr3393.log'));
    expect(f.format).toBe('torchtitan');
    expect(f.steps).toBe(8);
    expect(f.reservedBytes).toBeCloseTo(9.46 * GiB, 0);
    expect(f.allocatedBytes).toBeNull();
    // tps sorted: 7272 7282 7282 7304 7309 7313 7322 7334 -> median (7304 + 7309) / 2.
    expect(f.tokensPerSecondPerGpu).toBe((7304 + 7309) / 2);
  });

  it("LitGPT's iteration lines: a step is its iterations' times summed; the first and last step left out", () => {
    const f = parseTrainLog(fixture('litgpt-issue834.log'));
    expect(f.format).toBe('litgpt');
    expect(f.steps).toBe(7); // steps 50..56
    // Whole steps 51..55: 305.71, 298.04, 297.73, 297.31, 297.42 ms -> median 297.73 ms.
    expect(f.stepSeconds).toBeCloseTo(0.29773, 5);
    expect(f.allocatedBytes).toBeNull();
  });

  it("LitGPT's memory lines (GB = 1e9 bytes of max_memory_allocated), old and v0.5.13 forms", () => {
    // Built from the format strings (older finetune scripts: f"Memory used: {...:.02f} GB"; v0.5.13's report in
    // litgpt/utils.py: f"| - Memory Used               :  {memory_used:.02f} GB"), after the lines.
    const old = parseTrainLog(`${fixture('litgpt-issue834.log')}Memory used: 17.84 GB\n`);
    expect(old.allocatedBytes).toBe(17.84e9);
    const report = parseTrainLog(
      `${fixture('litgpt-issue834.log')}| - Memory Used               :  21.07 GB                                        \n`,
    );
    expect(report.allocatedBytes).toBe(21.07e9);
  });

  it("the Hugging Face Trainer's closing metrics: seconds per step = 1 / train_steps_per_second", () => {
    const f = parseTrainLog(
      "{'loss': 1.3, 'grad_norm': 0.5, 'learning_rate': 0.0002, 'epoch': 0.5}\n{'train_runtime': 62.5, 'train_samples_per_second': 6.4, 'train_steps_per_second': 1.6, 'train_loss': 1.2, 'epoch': 1.0}\n",
    );
    expect(f.format).toBe('hf-trainer');
    expect(f.stepSeconds).toBeCloseTo(1 / 1.6, 9);
  });

  it('a log with none of the formats gives no figure', () => {
    const f = parseTrainLog('hello\nworld\n');
    expect(f).toMatchObject({ format: null, allocatedBytes: null, stepSeconds: null, steps: 0 });
  });

  it('names the lines where a kernel fell back', () => {
    const text =
      'loading\nWARNING: flash_attn is not installed, falling back to sdpa\nstep 1\nMemory efficient kernel not used because: dtype\n';
    expect(fallbackLines(text)).toEqual([
      'WARNING: flash_attn is not installed, falling back to sdpa',
      'Memory efficient kernel not used because: dtype',
    ]);
    expect(fallbackLines(fixture('torchtitan-pr3393.log'))).toEqual([]);
  });
});

describe('serving metrics (Prometheus text)', () => {
  it("SGLang's documented dump: mean TTFT and TPOT since the start, running requests", () => {
    const s = servingFigures(fixture('sglang-docs.prom'));
    expect(s.engine).toBe('sglang');
    expect(s.ttftSeconds).toBeCloseTo(2.3518979474117756e6 / 11008, 6);
    expect(s.tpotSeconds).toBeCloseTo(866964.5791549598 / 7.400757e6, 9);
    expect(s.concurrency).toBe(162);
    expect(s.requests).toBe(11008);
    // One scrape: no window to take a throughput over.
    expect(s.throughputTokensPerSecond).toBeNull();
  });

  it("vLLM's documented dump: running requests; no TTFT mean without the histogram's _sum", () => {
    const s = servingFigures(fixture('vllm-design-metrics.prom'));
    expect(s.engine).toBe('vllm');
    expect(s.concurrency).toBe(8);
    expect(s.ttftSeconds).toBeNull();
  });

  it("llama-server's counters: seconds per generated token of a slot", () => {
    const s = servingFigures(fixture('llamacpp-ik695.prom'));
    expect(s.engine).toBe('llama-cpp');
    expect(s.tpotSeconds).toBeCloseTo(3544.27 / 3469, 9);
    expect(s.ttftSeconds).toBeNull();
  });

  it("the probe's scrapes: deltas between the first and last scrape of each port, summed over ports", () => {
    const scrape = (
      port: number,
      t: number,
      gen: number,
      sum: number,
      count: number,
      running: number,
    ) =>
      `# vramplan-scrape port=${port} t=${t}\nvllm:generation_tokens_total{model_name="m"} ${gen}\nvllm:inter_token_latency_seconds_sum{model_name="m"} ${sum}\nvllm:inter_token_latency_seconds_count{model_name="m"} ${count}\nvllm:num_requests_running{model_name="m"} ${running}\n`;
    const text =
      scrape(8000, 100, 1000, 5, 1000, 4) +
      scrape(8001, 100, 0, 0, 0, 2) +
      scrape(8000, 110, 3000, 25, 3000, 6) +
      scrape(8001, 110, 1000, 10, 1000, 2);
    expect(parseScrapes(text)).toHaveLength(4);
    const s = servingFigures(text);
    // Port 8000: 2000 tokens / 10 s; port 8001: 1000 / 10 s.
    expect(s.throughputTokensPerSecond).toBe(300);
    // TPOT: (20 + 10) s over (2000 + 1000) tokens.
    expect(s.tpotSeconds).toBeCloseTo(0.01, 12);
    // Running: mean of 4, 2, 6, 2.
    expect(s.concurrency).toBe(3.5);
  });
});
