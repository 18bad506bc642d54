/**
 * Round trip: a folder written by `launch` for a configuration, read back with
 * `--from <folder>`, gives the same options (the ones the engine's files can express).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { engineOf } from '../../src/core/engines/index.js';
import { onEngine } from '../../src/core/engines/index.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-from-launch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const arch = resolveModel('llama-3.1-8b');
const gpu = findGpu('a100-80gb');

/** The settings a launch folder carries (power, time-only knobs and the fp32-state switch excluded). */
const KEYS = [
  'method',
  'weights',
  'compute',
  'masterWeights',
  'doubleQuant',
  'optimizer',
  'loraRank',
  'loraTargets',
  'loraAllLinear',
  'batch',
  'seq',
  'checkpointing',
  'chunkedLoss',
  'liger',
  'optimizerInBackward',
  'zero',
  'offload',
  'gpus',
  'framework',
] as const;

const CASES: Record<string, unknown>[] = [
  {
    method: 'qlora',
    'lora-rank': 32,
    'lora-targets': 'all-linear',
    batch: 2,
    seq: 4096,
    checkpointing: 'full',
    optimizer: 'paged-adamw-8bit',
  },
  { method: 'lora', 'lora-targets': 'q,k,v,o', batch: 4, seq: 1024 },
  { method: 'lora', liger: true, checkpointing: 'full', seq: 8192 },
  { method: 'full', gpus: 4, zero: 3, framework: 'hf', liger: true },
  { method: 'lora', weights: 'int8', 'lora-rank': 8 },
  {
    method: 'full',
    gpus: 4,
    zero: 3,
    framework: 'deepspeed',
    checkpointing: 'full',
    'chunked-loss': true,
  },
  { method: 'full', gpus: 2, zero: 2, offload: 'optimizer', framework: 'deepspeed' },
  {
    method: 'full',
    gpus: 8,
    zero: 3,
    offload: 'optimizer+params',
    framework: 'deepspeed',
    optimizer: 'adamw',
  },
  { method: 'full', gpus: 4, zero: 3, framework: 'hf', checkpointing: 'full' },
  {
    method: 'lora',
    framework: 'torchtune',
    'lora-targets': 'q,v,o',
    checkpointing: 'full',
    batch: 2,
  },
  {
    method: 'full',
    framework: 'torchtune',
    compute: 'bf16',
    optimizer: 'paged-adamw-8bit',
    'optimizer-in-backward': true,
  },
  {
    method: 'qlora',
    framework: 'torchtune',
    'double-quant': true,
    gpus: 2,
    zero: 3,
    'lora-targets': 'q,k,v,o',
  },
  // LitGPT LoRA always chunks lm_head and the loss (finetune/lora.py), its full fine-tune never does.
  { method: 'lora', framework: 'litgpt', batch: 2 },
  { method: 'full', framework: 'litgpt', gpus: 2, zero: 3, checkpointing: 'full' },
];

describe('launch folder → --from → the same options', () => {
  CASES.forEach((flags, i) => {
    it(JSON.stringify(flags), () => {
      const asked = optionsFromFlags(flags);
      const options = onEngine(asked, engineOf(asked));
      const accum = options.optimizerInBackward ? 1 : 4;
      const bundle = buildLaunch({
        arch,
        options,
        gpu,
        // torchtune raises for optimizer_in_bwd with accumulation (rule torchtune-optimizer-in-bwd-accum).
        gradAccum: accum,
        powerLimitW: null,
        estimate: buildEstimate(arch, options, gpu),
        modelRef: arch.hfId ?? arch.id,
      });
      expect(bundle.files.length, JSON.stringify(bundle.outputs)).toBeGreaterThan(0);
      const dir = join(tmp, `case-${i}`);
      for (const f of bundle.files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.content);
      }
      const c = readFromConfig(dir);
      const merged = mergeFlags(c, {});
      const back = optionsFromFlags(merged);
      const pick = (o: typeof back) => Object.fromEntries(KEYS.map((k) => [k, o[k]]));
      expect(pick(back)).toEqual(pick(options));
      expect(merged['grad-accum']).toBe(accum);
      expect(resolveModel(c.model!).id).toBe('llama-3.1-8b');
    });
  });
});
