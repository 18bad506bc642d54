/**
 * `explain` times a configuration on estimate's time flags (gradient accumulation, power cap, node shape,
 * quantized kernels), defined once (TIME_FLAGS / addTimeOptions): on a plan's flags its time line is the
 * plan's figure, not one micro-batch per optimizer step at board power.
 */
import { spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { TIME_FLAGS } from '../../src/commands/estimate.js';
import { CLI, cliBuilt, runCli } from '../helpers/run-cli.js';

interface Timed {
  stepSeconds: number;
  tokensPerSecondPerGpu: number;
}

const QLORA_H100 = [
  '--model',
  'llama-3.1-8b',
  '--method',
  'qlora',
  '--gpu',
  'h100-sxm',
  '--batch',
  '4',
];

function timeOf(command: 'estimate' | 'explain', flags: readonly string[]): Timed {
  const r = runCli([command, ...QLORA_H100, ...flags, '--json']);
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { time: Timed }).time;
}

const helpOf = (command: string): string =>
  spawnSync(process.execPath, [CLI, command, '--help'], { encoding: 'utf8' }).stdout.replace(
    /\s+/g,
    ' ',
  );

describe('explain on estimate time flags', () => {
  beforeAll(() => expect(cliBuilt()).toBe(true));

  it("Llama-3.1-8B QLoRA, H100, micro-batch 4, accumulation 4: explain's time is estimate's", () => {
    const flags = ['--grad-accum', '4'];
    const planned = timeOf('estimate', flags);
    const explained = timeOf('explain', flags);
    expect(explained.stepSeconds).toBe(planned.stepSeconds);
    expect(explained.tokensPerSecondPerGpu).toBe(planned.tokensPerSecondPerGpu);
    // Accumulation amortizes the optimizer step: more tokens/s than one micro-batch a step.
    expect(explained.tokensPerSecondPerGpu).toBeGreaterThan(
      timeOf('explain', []).tokensPerSecondPerGpu,
    );
  });

  it("a power cap slows explain's step as it slows estimate's", () => {
    const flags = ['--grad-accum', '4', '--power-limit', '0.6'];
    const capped = timeOf('explain', flags);
    expect(capped.stepSeconds).toBe(timeOf('estimate', flags).stepSeconds);
    expect(capped.stepSeconds).toBeGreaterThan(
      timeOf('explain', ['--grad-accum', '4']).stepSeconds,
    );
  });

  it('explain --help lists every time flag with the words estimate --help gives it', () => {
    const estimate = helpOf('estimate');
    const explain = helpOf('explain');
    for (const [flag, value, description] of TIME_FLAGS) {
      const line = `--${flag} ${value} ${description}`;
      expect(estimate).toContain(line);
      expect(explain).toContain(line);
    }
  });
});
