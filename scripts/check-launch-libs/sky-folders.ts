/**
 * Rented plans whose SkyPilot task (sky.yaml) the SkyPilot check loads: multi-node, spot, each provider's
 * GPU names, a cloud SkyPilot lacks, serving. Written as `vramplan launch --model M --gpu G --offer O` writes
 * them. Shared by scripts/check-launch-libs/sky-write.ts (which sky.py reads) and the offline test.
 */
import type { EstimateResult } from '../../src/core/estimate.js';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { loadOffers } from '../../src/io/load-catalog.js';
import { flagsLaunchInput, type Folder } from './folders.js';

export const SKY_CASES: {
  name: string;
  model: string;
  offer: string;
  flags: Record<string, unknown>;
}[] = [
  {
    name: 'sky-lambda-fsdp-2node',
    model: 'llama-3.1-8b',
    offer: 'lambda-h100-sxm-on-demand-8x',
    flags: { method: 'full', zero: '3', gpus: '16', checkpointing: 'full' },
  },
  {
    name: 'sky-lambda-a6000-lora',
    model: 'llama-3.1-8b',
    offer: 'lambda-rtx-a6000-on-demand',
    flags: { method: 'qlora', checkpointing: 'full' },
  },
  {
    name: 'sky-runpod-spot-qlora',
    model: 'llama-3.1-8b',
    offer: 'runpod-rtx-4090-spot',
    flags: { method: 'qlora', optimizer: 'paged-adamw-8bit', checkpointing: 'full' },
  },
  {
    name: 'sky-runpod-h100-torchtune',
    model: 'llama-3.1-8b',
    offer: 'runpod-h100-sxm-spot',
    flags: { method: 'lora', framework: 'torchtune' },
  },
  {
    name: 'sky-aws-70b-full-2node',
    model: 'llama-3.1-70b',
    offer: 'aws-h100-sxm-reserved-8x',
    flags: {
      method: 'full',
      zero: '3',
      gpus: '16',
      checkpointing: 'full',
      offload: 'optimizer',
      framework: 'deepspeed',
    },
  },
  {
    name: 'sky-vast-a100-lora',
    model: 'llama-3.1-8b',
    offer: 'vast-a100-80gb-sxm-community',
    flags: { method: 'lora' },
  },
  {
    name: 'sky-serve-vllm-runpod',
    model: 'llama-3.1-8b',
    offer: 'runpod-h100-sxm-on-demand',
    flags: { method: 'inference', framework: 'vllm', batch: '16', seq: '4096' },
  },
  {
    name: 'sky-serve-sglang-modal',
    model: 'llama-3.1-8b',
    offer: 'modal-h100-sxm-serverless',
    flags: { method: 'inference', framework: 'sglang', batch: '16', seq: '4096' },
  },
  {
    name: 'sky-serve-vllm-2replicas-lambda',
    model: 'llama-3.1-8b',
    offer: 'lambda-h100-sxm-on-demand-2x',
    flags: { method: 'inference', framework: 'vllm', gpus: '2', batch: '16', seq: '4096' },
  },
];

/** LaunchInput of one case, as `vramplan launch --model --gpu <offer's GPU> --offer` builds it. */
export function skyCaseInput(row: (typeof SKY_CASES)[number]): LaunchInput<EstimateResult> {
  const offer = loadOffers().find((o) => o.id === row.offer);
  if (!offer) throw new Error(`no offer ${row.offer}`);
  return { ...flagsLaunchInput(row.model, offer.gpuId, row.flags, offer.gpusPerNode), offer };
}

/** The rented folders (engine files and sky.yaml; the README is not needed by the check). */
export const skyFolders = (): Folder[] =>
  SKY_CASES.map((row) => ({ name: row.name, files: buildLaunch(skyCaseInput(row)).files }));
