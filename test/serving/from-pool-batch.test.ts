// A serve line's --max-num-seqs / --max-running-requests caps the running requests; it is not a concurrency. With
// --gpu, `estimate --from` and `plan --from` take the batch the server runs at once: min(the cap, the sequences of
// the line's max context its KV pool holds) (core/from/pool-batch.ts). A pool that holds none names what the server
// does: vLLM refuses to start (check_enough_kv_cache_memory), SGLang caps a request at its pool.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runEstimateFrom } from '../../src/commands/estimate-from.js';
import { runPlanFrom } from '../../src/commands/plan-from.js';
import {
  PUBLISHED,
  publishedCases,
  runPublished,
  stdoutOfAsync,
} from '../helpers/published-configs.js';

const dir = mkdtempSync(join(tmpdir(), 'vramplan-poolbatch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (name: string, text: string): string => {
  const file = join(dir, name);
  writeFileSync(file, `${text}\n`);
  return file;
};

interface Out {
  fits: boolean;
  options: { batch: number; seq: number };
  serving?: { kvTokens: number; startRefusal?: string };
  warnings: string[];
}

const estimate = async (file: string, flags: Record<string, unknown>): Promise<Out> =>
  JSON.parse(await stdoutOfAsync(() => runEstimateFrom(file, undefined, flags, true))) as Out;

const planFits = async (file: string, gpu: string, model?: string): Promise<boolean> =>
  (
    JSON.parse(
      await stdoutOfAsync(() =>
        runPlanFrom(file, undefined, { gpu, json: true, ...(model ? { model } : {}) }),
      ),
    ) as { fits: boolean }
  ).fits;

describe('a vLLM serve line without --max-num-seqs on one H100', () => {
  const file = line('qwen3-8b.sh', 'vllm serve Qwen/Qwen3-8B --max-model-len 40960');

  it('runs the sequences of 40,960 tokens its pool holds, under the default cap, and fits', async () => {
    const r = await estimate(file, { gpu: 'h100-sxm' });
    const held = Math.floor(r.serving!.kvTokens / 40960);
    expect(r.options.seq).toBe(40960);
    expect(r.options.batch).toBeGreaterThanOrEqual(1);
    expect(r.options.batch).toBeLessThanOrEqual(held + 1);
    expect(r.options.batch).toBeLessThan(256);
    expect(r.fits).toBe(true);
    expect(r.warnings.join('\n')).toMatch(
      /--max-num-seqs 1024 \(the engine's default here\) caps the running requests.*run at once and the rest queue/,
    );
    expect(r.warnings.join('\n')).not.toMatch(/estimated with 256/);
  });

  it('flags beside --from win: --batch and --seq keep the contract batch (all held at once)', async () => {
    const r = await estimate(file, { gpu: 'h100-sxm', batch: 256, seq: 40960 });
    expect(r.options.batch).toBe(256);
    expect(r.fits).toBe(false);
    expect(r.warnings.join('\n')).not.toMatch(/caps the running requests/);
  });

  it('without --gpu the reader keeps the cap it read (no pool to admit from)', async () => {
    const r = await estimate(file, {});
    expect(r.options.batch).toBe(256);
    expect(r.warnings.join('\n')).toMatch(/--max-num-seqs not given/);
  });

  it("vLLM's --config YAML of the same line runs the same batch", async () => {
    const yaml = line('qwen3-8b.yaml', 'model: Qwen/Qwen3-8B\nmax_model_len: 40960');
    const [a, b] = [
      await estimate(file, { gpu: 'h100-sxm' }),
      await estimate(yaml, { gpu: 'h100-sxm' }),
    ];
    expect(b.options.batch).toBe(a.options.batch);
    expect(b.fits).toBe(true);
  });

  it('plan --from gives the same verdict', async () => {
    expect(await planFits(file, 'h100-sxm')).toBe(true);
  });
});

describe('a pool short of one max-context sequence', () => {
  it("vLLM: does not fit, naming the engine's start-up check", async () => {
    const file = line(
      'vllm-l4.sh',
      'vllm serve Qwen/Qwen3-8B --max-model-len 40960 --max-num-seqs 64',
    );
    const r = await estimate(file, { gpu: 'l4' });
    expect(r.serving!.kvTokens).toBeLessThan(40960);
    expect(r.options.batch).toBe(1);
    expect(r.fits).toBe(false);
    expect(r.serving!.startRefusal).toMatch(/check_enough_kv_cache_memory/);
    expect(r.warnings.join('\n')).toMatch(
      /holds no sequence of the max context 40,960: vLLM refuses to start/,
    );
    expect(await planFits(file, 'l4')).toBe(false);
  });

  it('SGLang: starts and caps a request at its pool (scheduler max_req_len)', async () => {
    const file = line(
      'sglang-l4.sh',
      'python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 40960',
    );
    const r = await estimate(file, { gpu: 'l4' });
    expect(r.serving!.kvTokens).toBeGreaterThan(0);
    expect(r.serving!.kvTokens).toBeLessThan(40960);
    expect(r.options.batch).toBe(1);
    expect(r.fits).toBe(true);
    expect(r.warnings.join('\n')).toMatch(
      /SGLang starts and caps a request at its pool, max_req_len/,
    );
  });

  it('SGLang with an empty pool: does not fit, naming its "Not enough memory" start-up error', async () => {
    const file = line(
      'sglang-4060.sh',
      'python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --context-length 8192',
    );
    const r = await estimate(file, { gpu: 'rtx-4060', weights: 'int4' });
    expect(r.serving!.kvTokens).toBe(0);
    expect(r.fits).toBe(false);
    expect(r.serving!.startRefusal).toMatch(
      /Not enough memory\. Please try to increase --mem-fraction-static/,
    );
  });
});

describe('SGLang without --max-running-requests on one H100', () => {
  it('runs what its pool holds at the max context (not --batch 1)', async () => {
    const file = line(
      'sglang-h100.sh',
      'python -m sglang.launch_server --model-path Qwen/Qwen3-8B --context-length 32768',
    );
    const r = await estimate(file, { gpu: 'h100-sxm' });
    expect(r.options.batch).toBe(Math.floor(r.serving!.kvTokens / 32768));
    expect(r.options.batch).toBeGreaterThan(1);
    expect(r.fits).toBe(true);
  });
});

describe('the published vLLM and SGLang serve lines', () => {
  const cases = publishedCases().filter(
    (c) =>
      c.from !== undefined &&
      /^(vllm|sglang) /.test(c.id) &&
      Object.keys(c.flags).every((k) => k === 'gpu'),
  );

  it('fit where the engine serves them (the Qwen3-Coder-480B FP8 line at 131k among them)', () => {
    const coder = runPublished(
      cases.find((c) => c.id === 'vllm qwen3-coder-480b fp8 dp8 ep 131k h200')!,
    );
    expect(coder.refusal).toBeNull();
    expect(coder.fits).toBe(true);
    expect(coder.deviceGiB!).toBeLessThan(141);
  });

  it('plan --from gives the verdict estimate --from gives', async () => {
    expect(cases.length).toBeGreaterThan(20);
    for (const c of cases) {
      const e = runPublished(c);
      if (e.refusal !== null) continue;
      const fits = await planFits(join(PUBLISHED, c.from!), c.flags.gpu as string, c.model);
      expect(fits, c.id).toBe(e.fits);
    }
  }, 120_000);
});
