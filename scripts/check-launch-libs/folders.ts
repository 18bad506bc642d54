/**
 * The launch folders the library check reads: the first plan of every shipped scenario and one plan per
 * engine and job kind (method, objective, serving), written exactly as `vramplan launch` writes them.
 * Shared by scripts/check-launch-libs/write-folders.ts (which the Python check reads) and the offline test.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate, type EstimateResult } from '../../src/core/estimate.js';
import { plannedTokens } from '../../src/core/launch/common.js';
import { buildLaunch, type LaunchFile, type LaunchInput } from '../../src/core/launch/index.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, modelSpecOf } from '../../src/io/load-scenario.js';
import { planScenarioFile } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';

await loadLaunchers();

export interface Folder {
  /** Folder name: `scenario-<file>` or `<engine>-<kind>`. */
  name: string;
  files: LaunchFile[];
}

/** One plan per engine and job kind, as flags (`vramplan launch --model M --gpu G <flags>`). */
export const ENGINE_KINDS: {
  name: string;
  model: string;
  gpu: string;
  flags: Record<string, unknown>;
}[] = [
  { name: 'hf-trainer-lora', model: 'llama-3.1-8b', gpu: 'h100-sxm', flags: { method: 'lora' } },
  {
    name: 'hf-trainer-qlora',
    model: 'llama-3.1-8b',
    gpu: 'rtx-4090',
    flags: { method: 'qlora', optimizer: 'paged-adamw-8bit', checkpointing: 'full' },
  },
  {
    name: 'hf-trainer-full-liger-flash',
    model: 'qwen2.5-1.5b',
    gpu: 'h100-sxm',
    flags: { method: 'full', liger: true, attention: 'flash' },
  },
  {
    name: 'hf-fsdp-full',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'full', zero: '3', gpus: '4', checkpointing: 'full' },
  },
  {
    name: 'hf-fsdp-full-offload',
    model: 'llama-3.1-70b',
    gpu: 'h100-sxm',
    flags: {
      method: 'full',
      zero: '3',
      offload: 'optimizer+params',
      gpus: '8',
      checkpointing: 'full',
    },
  },
  {
    name: 'hf-fsdp-qlora',
    model: 'llama-3.1-70b',
    gpu: 'a100-80gb-sxm',
    flags: { method: 'qlora', zero: '3', gpus: '2', checkpointing: 'full' },
  },
  {
    name: 'hf-fsdp-full-2node',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'full', zero: '3', gpus: '16', checkpointing: 'full' },
  },
  {
    name: 'hf-deepspeed-full-offload',
    model: 'llama-2-70b',
    gpu: 'a100-80gb-sxm',
    flags: {
      method: 'full',
      zero: '3',
      offload: 'optimizer+params',
      gpus: '8',
      checkpointing: 'full',
      framework: 'deepspeed',
    },
  },
  {
    name: 'hf-deepspeed-lora-z2',
    model: 'llama-3.1-8b',
    gpu: 'a100-80gb-sxm',
    flags: { method: 'lora', zero: '2', gpus: '4', framework: 'deepspeed' },
  },
  {
    name: 'hf-dpo-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'lora', objective: 'dpo' },
  },
  {
    name: 'hf-grpo-lora-colocate',
    model: 'qwen2.5-7b',
    gpu: 'h100-sxm',
    flags: {
      method: 'lora',
      objective: 'grpo',
      'lora-targets': 'all-linear',
      rollout: 'vllm-colocate',
    },
  },
  {
    name: 'unsloth-qlora',
    model: 'llama-3.1-8b',
    gpu: 'rtx-4090',
    flags: { method: 'qlora', framework: 'unsloth' },
  },
  {
    name: 'unsloth-dpo-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'lora', objective: 'dpo', framework: 'unsloth' },
  },
  {
    name: 'torchtune-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'lora', framework: 'torchtune' },
  },
  {
    name: 'torchtune-full-fsdp',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'full', zero: '3', gpus: '4', framework: 'torchtune', checkpointing: 'full' },
  },
  {
    name: 'torchtune-qlora-gemma2',
    model: 'gemma-2-9b',
    gpu: 'rtx-4090',
    flags: { method: 'qlora', framework: 'torchtune', checkpointing: 'full' },
  },
  {
    name: 'torchtitan-full',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'full',
      weights: 'fp32',
      zero: '3',
      gpus: '8',
      framework: 'torchtitan',
      checkpointing: 'selective',
    },
  },
  {
    name: 'litgpt-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'lora', framework: 'litgpt' },
  },
  {
    name: 'litgpt-full-fsdp',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'full', zero: '3', gpus: '4', framework: 'litgpt', checkpointing: 'full' },
  },
  {
    name: 'vllm-bf16',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'inference', framework: 'vllm', batch: '16', seq: '4096' },
  },
  {
    name: 'vllm-int4',
    model: 'llama-3.3-70b-instruct',
    gpu: 'h100-sxm',
    flags: { method: 'inference', framework: 'vllm', weights: 'int4', batch: '16', seq: '4096' },
  },
  {
    name: 'vllm-nf4',
    model: 'llama-3.1-8b',
    gpu: 'rtx-4090',
    flags: { method: 'inference', framework: 'vllm', weights: 'nf4', batch: '8', seq: '4096' },
  },
  // One server over two machines of eight (serve.sh runs on every machine with NODE_RANK and MASTER_ADDR).
  {
    name: 'sglang-dpattn-2node',
    model: 'deepseek-v3',
    gpu: 'h100-sxm',
    flags: {
      method: 'inference',
      framework: 'sglang',
      weights: 'fp8',
      gpus: '16',
      tp: '2',
      'dp-attention': true,
      ep: '16',
      batch: '8',
      seq: '8192',
    },
  },
  {
    name: 'vllm-dpattn-2node',
    model: 'deepseek-v3',
    gpu: 'h100-sxm',
    flags: {
      method: 'inference',
      framework: 'vllm',
      weights: 'fp8',
      gpus: '16',
      tp: '2',
      'dp-attention': true,
      ep: '16',
      batch: '8',
      seq: '8192',
    },
  },
  {
    name: 'vllm-tp16-2node',
    model: 'deepseek-v3',
    gpu: 'h100-sxm',
    flags: {
      method: 'inference',
      framework: 'vllm',
      weights: 'fp8',
      gpus: '16',
      tp: '16',
      batch: '8',
      seq: '8192',
    },
  },
  {
    name: 'sglang-bf16',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'inference', framework: 'sglang', batch: '16', seq: '4096' },
  },
  {
    name: 'llama-cpp-q4',
    model: 'llama-3.1-8b',
    gpu: 'rtx-4090',
    flags: {
      method: 'inference',
      framework: 'llama.cpp',
      weights: 'q4_k_m',
      batch: '4',
      seq: '4096',
    },
  },
  {
    name: 'llama-cpp-2gpu-layer-split',
    model: 'llama-3.1-70b',
    gpu: 'rtx-4090',
    flags: {
      method: 'inference',
      framework: 'llama.cpp',
      weights: 'q4_k_m',
      batch: '4',
      seq: '4096',
      gpus: '2',
      pp: '2',
    },
  },
  {
    name: 'llama-cpp-q8-kv8-prefix',
    model: 'llama-3.1-8b',
    gpu: 'rtx-4090',
    flags: {
      method: 'inference',
      framework: 'llama.cpp',
      weights: 'q8_0',
      batch: '4',
      seq: '4096',
      'kv-cache-dtype': 'fp8',
      'prefix-cache': '0.5',
    },
  },
  {
    name: 'hf-generate-bf16',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'inference', framework: 'hf', batch: '4', seq: '2048' },
  },
  // Launcher features added after the 2026-12-02 check, one folder each (PPO, FP8 training on the
  // Accelerate engines and llama-server's --lora adapters are estimated, not written).
  {
    name: 'hf-grpo-lora-server',
    model: 'qwen2.5-7b',
    gpu: 'h100-sxm',
    flags: {
      method: 'lora',
      objective: 'grpo',
      rollout: 'vllm-server',
      gpus: '4',
      'rollout-gpus': '1',
    },
  },
  {
    name: 'hf-trainer-lora-modules-to-save',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'lora', 'modules-to-save': 'embed,lm_head' },
  },
  {
    name: 'unsloth-lora-modules-to-save-tiled-mlp',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'lora',
      framework: 'unsloth',
      'modules-to-save': 'embed,lm_head',
      'tiled-mlp': true,
    },
  },
  {
    name: 'torchtitan-full-fp8',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'full',
      zero: '3',
      gpus: '8',
      framework: 'torchtitan',
      compute: 'fp8',
      checkpointing: 'selective',
    },
  },
  {
    name: 'torchtune-full-adamw8bit-fsdp',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'full',
      zero: '3',
      gpus: '4',
      framework: 'torchtune',
      optimizer: 'adamw-8bit',
      checkpointing: 'full',
    },
  },
  {
    name: 'sglang-fp8-block-mtp',
    model: 'deepseek-v3',
    gpu: 'h200',
    flags: {
      method: 'inference',
      framework: 'sglang',
      weights: 'fp8',
      gpus: '8',
      tp: '8',
      speculative: 'mtp',
      batch: '8',
      seq: '8192',
    },
  },
  {
    name: 'sglang-eagle3',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'inference',
      framework: 'sglang',
      speculative: 'eagle3',
      batch: '8',
      seq: '4096',
    },
  },
  {
    name: 'sglang-multi-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'inference', framework: 'sglang', 'max-loras': '4', batch: '16', seq: '4096' },
  },
  {
    name: 'vllm-fp8-block-mtp',
    model: 'deepseek-v3',
    gpu: 'h200',
    flags: {
      method: 'inference',
      framework: 'vllm',
      weights: 'fp8',
      gpus: '8',
      tp: '8',
      speculative: 'mtp',
      batch: '8',
      seq: '8192',
    },
  },
  {
    name: 'vllm-eagle3',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'inference',
      framework: 'vllm',
      speculative: 'eagle3',
      batch: '8',
      seq: '4096',
    },
  },
  {
    name: 'vllm-ngram-multi-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: {
      method: 'inference',
      framework: 'vllm',
      speculative: 'ngram',
      'spec-acceptance': '0.3',
      'max-loras': '4',
      batch: '8',
      seq: '4096',
    },
  },
  {
    name: 'vllm-nvfp4',
    model: 'llama-3.1-8b',
    gpu: 'b200',
    flags: { method: 'inference', framework: 'vllm', weights: 'nvfp4', batch: '16', seq: '4096' },
  },
  {
    name: 'hf-generate-lora',
    model: 'llama-3.1-8b',
    gpu: 'h100-sxm',
    flags: { method: 'inference', framework: 'hf', 'max-loras': '1', batch: '4', seq: '2048' },
  },
];

/**
 * LaunchInput as `vramplan launch --model <model> --gpu <gpu> <flags>` builds it: the contract flags, the engine's
 * defaults, the estimate; at most `perNode` GPUs a machine (eight by default, an offer's own count for rentals).
 */
export function flagsLaunchInput(
  model: string,
  gpuId: string,
  flags: Record<string, unknown>,
  perNode = 8,
): LaunchInput<EstimateResult> {
  const arch = resolveModel(model);
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const gpu = findGpu(gpuId);
  return {
    arch,
    options,
    gpu,
    gradAccum: 4,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? model,
    gpusPerNode: Math.min(options.gpus, perNode),
  };
}

/** LaunchInput of one engine-kind row (eight GPUs a machine). */
const flagsInput = (row: (typeof ENGINE_KINDS)[number]): LaunchInput<EstimateResult> =>
  flagsLaunchInput(row.model, row.gpu, row.flags);

const withReadme = (x: LaunchInput<EstimateResult>): LaunchFile[] => {
  const bundle = buildLaunch(x);
  return [...bundle.files, { path: 'README.md', content: renderLaunchReadme(x, bundle) }];
};

/** The engine-kind folders (fast: no planning). */
export const engineKindFolders = (): Folder[] =>
  ENGINE_KINDS.map((row) => ({ name: row.name, files: withReadme(flagsInput(row)) }));

/** The first plan of every shipped scenario (plans each scenario, as `vramplan launch <file>` does). */
export async function scenarioFolders(dir = 'scenarios'): Promise<Folder[]> {
  const out: Folder[] = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.yaml'))
    .sort()) {
    const file = join(dir, f);
    const result = await planScenarioFile(file, { top: 1 });
    const plan = result.plans[0];
    if (!plan) continue;
    const scenario = loadScenario(file);
    const arch = resolveModel(modelSpecOf(file, scenario), { flag: 'model' });
    const x = launchInputOfPlan(
      plan,
      arch,
      arch.hfId ?? arch.id,
      undefined,
      plannedTokens(scenario.job),
    );
    out.push({ name: `scenario-${f.replace(/\.yaml$/, '')}`, files: withReadme(x) });
  }
  return out;
}
