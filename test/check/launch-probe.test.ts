/**
 * Every engine's launch folder carries the probe and the plan, and the plan's flags, read back the way
 * `validate --cases` reads a case row, give the very figures the folder promised: a run's --case rows are scored
 * against the plan it was launched from.
 */
import { describe, expect, it } from 'vitest';
import { launchFolder, launchInputFromFlags } from '../../src/commands/launch-run.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { PROBE_FILE } from '../../src/core/launch/probe-py.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { RUN_PLAN_FILE, runPlanSchema } from '../../src/schema/measured.js';

const CASES: [string, Record<string, string>][] = [
  ['hf-trainer', { method: 'lora', gpu: 'h100-sxm-80gb' }],
  [
    'hf-deepspeed',
    { method: 'full', zero: '3', gpus: '8', framework: 'deepspeed', gpu: 'h100-sxm-80gb' },
  ],
  ['unsloth', { method: 'lora', framework: 'unsloth', gpu: 'rtx-4090' }],
  ['torchtune', { method: 'lora', framework: 'torchtune', gpu: 'h100-sxm-80gb' }],
  [
    'torchtitan',
    { method: 'full', framework: 'torchtitan', zero: '3', gpus: '8', gpu: 'h100-sxm-80gb' },
  ],
  ['litgpt', { method: 'lora', framework: 'litgpt', gpu: 'h100-sxm-80gb' }],
  ['vllm', { method: 'inference', framework: 'vllm', batch: '8', gpu: 'h100-sxm-80gb' }],
  ['sglang', { method: 'inference', framework: 'sglang', gpu: 'h100-sxm-80gb' }],
  [
    'llama.cpp',
    { method: 'inference', framework: 'llama.cpp', weights: 'q4_k_m', gpu: 'rtx-4090' },
  ],
  ['hf-generate', { method: 'inference', gpu: 'h100-sxm-80gb' }],
];
const LF = {
  gradAccum: undefined,
  powerLimit: undefined,
  sharding: undefined,
  out: 'x',
  force: false,
};

describe('launch folders: probe and plan', () => {
  for (const [engine, flags] of CASES) {
    it(`${engine}: vramplan_probe.py and vramplan-plan.json; the plan's flags re-estimate to its figures`, () => {
      const { bundle, files } = launchFolder(launchInputFromFlags('llama-3.1-8b', flags, LF));
      expect(bundle.engine).toBe(engine);
      const paths = files.map((f) => f.path);
      expect(paths).toContain(PROBE_FILE);
      const plan = runPlanSchema.parse(
        JSON.parse(files.find((f) => f.path === RUN_PLAN_FILE)!.content),
      );
      expect(plan.engine).toBe(engine);
      // As validate --cases estimates a row: its flags, on its GPU for the paged-KV servers.
      const options = optionsFromFlags(plan.flags);
      const paged =
        options.method === 'inference' && ['vllm', 'sglang'].includes(options.framework);
      const r = buildEstimate(
        resolveModel(plan.model.id),
        options,
        paged ? findGpu(String(plan.flags.gpu)) : undefined,
      );
      expect([r.perGpu.allocatedBytes, r.perGpu.reservedBytes, r.perGpu.deviceBytes]).toEqual([
        plan.estimate.allocatedBytes,
        plan.estimate.reservedBytes,
        plan.estimate.deviceBytes,
      ]);
    });
  }
});
