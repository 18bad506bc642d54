// torchtitan's default loss is ChunkedLossWrapper (0.3.0 components/loss.py): estimate, plan, --from and launch
// count and keep it; its memory is one chunk's output layer and loss, not the full logits.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { onEngine, withEngineDefaults } from '../../src/core/engines/index.js';
import { TORCHTITAN_FILE } from '../../src/core/engines/torchtitan/launch.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { chunkedLossFuses } from '../../src/core/memory/frameworks.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const FLAGS = {
  framework: 'torchtitan',
  method: 'full',
  weights: 'fp32',
  batch: 1,
  seq: 8192,
  checkpointing: 'selective',
  zero: 3,
  gpus: 8,
};
// Llama 3.1 8B: 128,256 vocabulary entries, hidden 4096.
const V = 128_256;
const H = 4096;

/** The options `estimate` runs (estimate-run.ts: the engine's defaults over the flags). */
const options = (flags: Record<string, unknown>) => {
  const f = { ...FLAGS, ...flags };
  return withEngineDefaults(optionsFromFlags(f), f);
};
const arch = resolveModel('llama-3.1-8b');
const forwardLogits = (flags: Record<string, unknown>): number =>
  buildEstimate(arch, options(flags)).phases.find((p) => p.phase === 'forward')!.parts.logits;

/** ChunkedLossWrapper at the end of forward: one chunk's logits and loss tensors, the fp32 gradient buffer. */
const chunked = (tokens: number, perV: number, batch = 1) =>
  (tokens / 8) * V * perV +
  4 * H * tokens +
  2 * H * (tokens / 8) +
  (batch > 1 ? 2 * H * tokens : 0);

describe('torchtitan chunked loss by default', () => {
  it('estimate --framework torchtitan chunks the loss unless --no-chunked-loss', () => {
    expect(options({}).chunkedLoss).toBe(true);
    expect(options({ 'chunked-loss': false }).chunkedLoss).toBe(false);
    expect(options({ framework: 'hf' }).chunkedLoss).toBe(false);
  });

  it('the planner counts the engine default (onEngine of a configuration that names no loss)', () => {
    expect(onEngine(defaultOptions('full'), 'torchtitan').chunkedLoss).toBe(true);
    expect(onEngine(defaultOptions('full'), 'torchtune').chunkedLoss).toBe(false);
  });

  it('one chunk of eager logits with the upcast backward (2 + 12 B a logit), not the full logits', () => {
    expect(forwardLogits({})).toBe(chunked(8192, 2 + 12));
    // The plain loss: the upcast forward over every token (bf16 + fp32 copy + log_softmax).
    expect(forwardLogits({ 'chunked-loss': false })).toBe(8192 * V * (2 + 4 + 4));
  });

  it('compiled inner loss: the chunk bf16 logits and their gradient; two sequences copy the chunks', () => {
    expect(forwardLogits({ compile: true })).toBe(chunked(8192, 4));
    expect(forwardLogits({ batch: 2 })).toBe(chunked(16_384, 14, 2));
  });

  it('backward starts from the 16-bit hidden gradient the loss call hands it', () => {
    const b = buildEstimate(arch, options({})).phases.find((p) => p.phase === 'backward')!;
    expect(b.parts.logits).toBe(2 * H * 8192);
  });

  it('the chunked wrapper brings no model compile (activations as the plain loss)', () => {
    const act = (f: Record<string, unknown>) =>
      buildEstimate(arch, options(f)).phases.find((p) => p.phase === 'forward')!.parts.activations;
    expect(act({ 'chunked-loss': true })).toBe(act({ 'chunked-loss': false }));
  });

  it('time: the wrapper runs the eager loss chunk by chunk (no fused-loss saving)', () => {
    expect(chunkedLossFuses(options({}))).toBe(false);
    expect(chunkedLossFuses(options({ framework: 'torchtune', 'chunked-loss': true }))).toBe(true);
  });
});

describe('torchtitan launch keeps the wrapper; --from reads it back chunked', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vramplan-ttchunk-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const write = (flags: Record<string, unknown>, name: string): string => {
    const o = options(flags);
    const gpu = findGpu('h100-sxm');
    const out = buildLaunch({
      arch,
      options: o,
      gpu,
      gradAccum: 1,
      powerLimitW: null,
      estimate: buildEstimate(arch, o, gpu),
      modelRef: arch.hfId ?? 'llama-3.1-8b',
    });
    const dir = join(tmp, name);
    for (const f of out.files) {
      mkdirSync(dirname(join(dir, f.path)), { recursive: true });
      writeFileSync(join(dir, f.path), f.content);
    }
    return join(dir, TORCHTITAN_FILE);
  };

  it('the default plan leaves config.loss as the recipe wrote it; --no-chunked-loss unwraps it', () => {
    expect(readFileSync(write({}, 'default'), 'utf8')).not.toContain('config.loss.loss_fn');
    expect(readFileSync(write({ 'chunked-loss': false }, 'plain'), 'utf8')).toContain(
      'config.loss = config.loss.loss_fn',
    );
  });

  it('--from the default recipe estimates the chunked output layer', () => {
    const c = readFromConfig(write({}, 'from'));
    const flags = mergeFlags(c, {});
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(o.chunkedLoss).toBe(true);
    const fwd = buildEstimate(arch, o).phases.find((p) => p.phase === 'forward')!;
    expect(fwd.parts.logits).toBe(chunked(o.batch * o.seq, 14, o.batch));
  });
});
