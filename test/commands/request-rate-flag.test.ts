/**
 * `estimate --request-rate R` (an optional time flag beside the contract's): the serving burst's --batch prompts sent
 * one every 1 / R seconds (time/length-spread.ts sentAt). Omitted or `inf`, the burst is sent at once and the JSON is
 * the same as without the flag; a rate adds `time.settings.requestRate`, lengthens the run from the first send and
 * times each first token from its own request's send.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli } from '../helpers/run-cli.js';

beforeAll(() => expect(cliBuilt()).toBe(true));

interface Burst {
  requests: number;
  ttftMeanSeconds: number;
  ttftMaxSeconds: number;
  outputTokensPerSecond: number;
  durationSeconds: number;
}
interface Out {
  time: { burst: Burst; settings: { requestRate?: number } };
}

const BASE = [
  'estimate',
  '--model',
  'llama-2-7b',
  '--gpu',
  'h100-sxm',
  '--method',
  'inference',
  '--framework',
  'vllm',
  '--batch',
  '64',
  '--seq',
  '3000',
  '--prompt-tokens',
  '1000',
  '--json',
];
const run = (...extra: string[]): Out => {
  const r = runCli([...BASE, ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Out;
};

describe('estimate --request-rate', () => {
  it('inf is the burst sent at once, byte for byte', () => {
    const once = runCli(BASE).stdout;
    expect(runCli([...BASE, '--request-rate', 'inf']).stdout).toBe(once);
    expect((JSON.parse(once) as Out).time.settings.requestRate).toBeUndefined();
  });

  it('a rate lengthens the run from the first send and times first tokens from each send', () => {
    const once = run().time.burst;
    const paced = run('--request-rate', '10');
    expect(paced.time.settings.requestRate).toBe(10);
    const b = paced.time.burst;
    expect(b.requests).toBe(64);
    // The last of 64 is sent 6.3 s after the first and still decodes its 2,000 tokens.
    expect(b.durationSeconds).toBeGreaterThan(once.durationSeconds);
    expect(b.durationSeconds).toBeGreaterThan(6.3);
    expect(b.outputTokensPerSecond).toBeCloseTo((64 * 2000) / b.durationSeconds, -1);
    // Sent 0.1 s apart, no prompt queues behind the others' prefills as the burst's do.
    expect(b.ttftMeanSeconds).toBeLessThan(once.ttftMeanSeconds);
    expect(b.ttftMaxSeconds).toBeLessThan(once.ttftMaxSeconds);
  });
});
