// `plan --from` and `estimate --from` time the configuration as its own tool builds it (FromMapping.build), with
// the widths memory counts: axolotl's QLoRA loader keeps PEFT's fp32 adapters under transformers' Trainer
// (kbitFp32Adapters), so torch AdamW's states are fp32 and the optimizer step moves them at 4 bytes where the hf
// profile alone keeps 16-bit k-bit adapters (memory/trainable-width.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { OPTIMIZER_PROFILES } from '../../src/core/engines/optimizers.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { runCli } from '../helpers/run-cli.js';

const FIXTURE = new URL('../fixtures/from/axolotl/examples/llama-3/qlora.yml', import.meta.url);
// The upstream example stepped by torch AdamW (its states made like the adapters; the example's paged_adamw_32bit
// keeps fp32 states whatever the adapters) on short unpacked sequences, where the optimizer step shows in the step.
const EDITS: readonly [string, string][] = [
  ['optimizer: paged_adamw_32bit', 'optimizer: adamw_torch'],
  ['sequence_len: 4096', 'sequence_len: 256'],
  ['sample_packing: true', 'sample_packing: false'],
  ['micro_batch_size: 2', 'micro_batch_size: 1'],
  ['lora_r: 32', 'lora_r: 256'],
];
const MODEL = ['--model', 'llama-3.2-1b', '--gpu', 'h100-sxm', '--json'];

const dir = mkdtempSync(join(tmpdir(), 'vramplan-from-build-time-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(): string {
  let text = readFileSync(FIXTURE, 'utf8');
  for (const [from, to] of EDITS) {
    expect(text).toContain(from);
    text = text.replace(from, to);
  }
  const file = join(dir, 'qlora-adamw.yml');
  writeFileSync(file, text);
  return file;
}

const optimizerSeconds = (phases: { phase: string; seconds: number }[]): number =>
  phases.find((p) => p.phase === 'optimizer')!.seconds;

describe('the build context times what memory counts', () => {
  it('plan --from and estimate --from give the same time, with the fp32 adapters of the build', () => {
    const file = config();
    const est = runCli(['estimate', '--from', file, ...MODEL]);
    const plan = runCli(['plan', '--from', file, ...MODEL]);
    expect(est.status).toBe(0);
    expect(plan.status).toBe(0);
    const e = JSON.parse(est.stdout) as {
      options: EstimateOptions;
      time: { stepSeconds: number; tokensPerSecondPerGpu: number; phases: [] };
    };
    const p = JSON.parse(plan.stdout) as {
      time: { stepSeconds: number; tokensPerSecondPerGpu: number };
    };
    expect(p.time.stepSeconds).toBe(e.time.stepSeconds);
    expect(p.time.tokensPerSecondPerGpu).toBe(e.time.tokensPerSecondPerGpu);

    // The reader's build keeps the adapters fp32; with it, memory doubles the adapters and time's optimizer step
    // moves fp32 states (AdamW's fused row at 4 bytes against 2; phases carry four significant digits).
    const build = readFromConfig(file).build;
    expect(build?.kbitFp32Adapters).toBe(true);
    const arch = resolveModel('llama-3.2-1b');
    const gpu = findGpu('h100-sxm');
    const kept = buildEstimate(arch, e.options, gpu, undefined, build);
    const bare = buildEstimate(arch, e.options, gpu);
    expect(kept.perGpu.breakdown.adapters / bare.perGpu.breakdown.adapters).toBeCloseTo(2, 9);
    const traffic = OPTIMIZER_PROFILES.adamw.stepTraffic;
    // The Trainer's gradient-norm clip rides in the optimizer phase (FrameworkProfile.gradClip): a read for the norm,
    // a read and a write to scale, in the adapters' width.
    const clip = (w: number) => w + 2 * w;
    expect(optimizerSeconds(kept.time!.phases) / optimizerSeconds(bare.time!.phases)).toBeCloseTo(
      (traffic(4) + clip(4)) / (traffic(2) + clip(2)),
      2,
    );
    // estimate --from's optimizer step is the kept build's (JSON figures carry four significant digits).
    expect(optimizerSeconds(e.time.phases) / optimizerSeconds(kept.time!.phases)).toBeCloseTo(1, 3);
  });
});
