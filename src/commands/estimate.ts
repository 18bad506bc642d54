/** `vramplan estimate`: the estimate contract (docs/DESIGN.md). parse → load → estimate → print. */
import type { Command } from 'commander';
import { defaultOptions, EstimateOptionsSchema } from '../schema/estimate.js';
import { FlagError, frameworkFlagNames, type RawFlags } from '../schema/flags.js';
import { onlineModel } from './online-model.js';

type EnumKey = {
  [K in keyof typeof EstimateOptionsSchema.shape]: (typeof EstimateOptionsSchema.shape)[K] extends {
    options: readonly string[];
  }
    ? K
    : never;
}[keyof typeof EstimateOptionsSchema.shape];

/** `a, b, c (default b)`: the values the zod enum of `key` allows, so help never drifts from validation. */
const oneOf = (
  key: EnumKey,
  defaults = ` (default ${String(defaultOptions('full')[key])})`,
): string => `${EstimateOptionsSchema.shape[key].options.join(', ')}${defaults}`;

/** Contract flags: [flag, value placeholder or null for a switch, description]. */
export const CONTRACT_FLAGS: readonly [string, string | null, string][] = [
  ['method', '<method>', oneOf('method')],
  [
    'weights',
    '<dtype>',
    `base weight storage: ${oneOf('weights', ' (default bf16; nf4 for qlora)')}`,
  ],
  [
    'compute',
    '<dtype>',
    `activation/compute dtype: ${oneOf('compute')}; fp8 and mxfp8 train the linears in FP8 (torchao), the rest in bf16`,
  ],
  ['master-weights', null, 'keep an fp32 master copy of trainable weights'],
  ['double-quant', null, 'nf4/fp4 double quantization of the block constants'],
  ['optimizer', '<name>', oneOf('optimizer', ' (default adamw; none for inference)')],
  [
    'optimizer-states',
    '<dtype>',
    `dtype of 32-bit-class optimizer states: ${oneOf('optimizerStates')}`,
  ],
  ['lora-rank', '<r>', 'LoRA rank (default 16)'],
  ['lora-dropout', '<p>', "LoRA dropout, 0 <= p < 1 (default: the engine's written config)"],
  [
    'lora-targets',
    '<list>',
    `comma list of ${EstimateOptionsSchema.shape.loraTargets.element.options.join(',')}, or all-linear (default q,v)`,
  ],
  [
    'modules-to-save',
    '<list>',
    'LoRA/QLoRA: modules trained fully beside the adapters (PEFT modules_to_save): embed,lm_head',
  ],
  ['batch', '<n>', 'micro-batch size per data-parallel rank (default 1; grpo: 8, TRL)'],
  ['seq', '<tokens>', 'tokens per sample, or total context for inference (default 2048)'],
  ['checkpointing', '<mode>', oneOf('checkpointing')],
  ['attention', '<impl>', oneOf('attention')],
  ['chunked-loss', null, 'the loss never materialises full-vocabulary fp32 logits'],
  [
    'liger',
    null,
    'Liger kernels on the hf engines (fused linear cross-entropy, RMSNorm, SwiGLU, RoPE)',
  ],
  [
    'tiled-mlp',
    null,
    'unsloth: unsloth_tiled_mlp, each MLP run in tiles of hidden-size tokens (recomputed in backward)',
  ],
  [
    'fsdp-version',
    '<1|2>',
    "hf-fsdp: accelerate's fsdp_version, 1 the FlatParameter FSDP, 2 fully_shard (default: what launch writes)",
  ],
  ['optimizer-in-backward', null, 'step and free each gradient during backward'],
  ['zero', '<stage>', 'ZeRO / FSDP sharding stage 0-3 (default 0)'],
  ['offload', '<what>', oneOf('offload')],
  ['gpus', '<n>', 'total GPU count (default tp x pp x cp, i.e. 1)'],
  ['tp', '<n>', 'tensor-parallel degree (default 1)'],
  ['pp', '<n>', 'pipeline-parallel degree (default 1)'],
  ['cp', '<n>', 'context-parallel degree (default 1)'],
  ['sequence-parallel', null, 'with --tp: norm/dropout activations sharded over the TP group'],
  ['loss-parallel', null, 'with --tp: logits and loss kept vocabulary-sharded'],
  ['compile', null, 'torch.compile / fused kernels on (memory and time)'],
  ['sparsity', '<fraction>', 'fraction of zero weights in the linear layers, 0-1 (default 0)'],
  ['sparse-format', '<fmt>', oneOf('sparseFormat')],
  ['objective', '<name>', 'sft, dpo, orpo, kto, simpo, grpo, ppo, reward, prm (default sft)'],
  [
    'reference',
    '<where>',
    "model, none, precomputed (default: TRL's: model for dpo/kto, none for orpo/simpo and grpo)",
  ],
  ['generations', '<n>', 'GRPO: completions per prompt (default 8; PPO: 1)'],
  [
    'completion-tokens',
    '<n>',
    'GRPO: mean generated tokens per completion (default 256); PPO: response_length (53)',
  ],
  [
    'max-completion-tokens',
    '<n>',
    'GRPO: cap on a completion (TRL max_completion_length; default uncapped: 1.47 x the mean)',
  ],
  [
    'rollout',
    '<engine>',
    'GRPO generation: vllm-colocate, vllm-server, hf (default hf; PPO: hf only)',
  ],
  [
    'rollout-memory',
    '<fraction>',
    'vllm-colocate: share of each GPU vLLM takes (default 0.3; unsloth 0.5)',
  ],
  [
    'rollout-sleep',
    null,
    'vllm-colocate: vLLM sleeps while training (TRL vllm_enable_sleep_mode, Unsloth Standby)',
  ],
  ['rollout-gpus', '<n>', 'vllm-server: GPUs of --gpus running the vLLM server (default 1)'],
  ['ppo-epochs', '<n>', "ppo: optimisation epochs over each generation batch (default 4, TRL's)"],
  ['rollout-chunk', '<n>', "ppo: sequences generated and scored at once (default 64, TRL's)"],
  [
    'kv-cache-dtype',
    '<dtype>',
    'serving KV cache: auto (the compute dtype), fp8 (llama.cpp: q8_0), q4_0 (llama.cpp only)',
  ],
  [
    'kv-block-size',
    '<n>',
    'serving: tokens a KV-cache block (vLLM --block-size; picks its ROCm decode-attention kernel)',
  ],
  ['gpu-layers', '<n>', 'llama.cpp -ngl: layers on the GPU, the rest in host RAM (default all)'],
  ['n-cpu-moe', '<n>', 'llama.cpp --n-cpu-moe: MoE experts of the first n layers in host RAM'],
  [
    'prompt-tokens',
    '<n>',
    'prompt tokens: serving, per request (default seq/2, the rest of --seq generated); GRPO, per prompt (default 512)',
  ],
  [
    'prefix-cache',
    '<fraction>',
    "serving: share of each prompt already in the engine's prefix cache, 0 to below 1 (default 0)",
  ],
  [
    'ep',
    '<n>',
    'MoE models: expert-parallel degree; serving: the GPUs each MoE layer spans (--tp, or --gpus with --dp-attention); training on torchtitan: whole experts over ep of --gpus / --pp (default 1)',
  ],
  [
    'dp-attention',
    null,
    'serving MoE models: the data-parallel ranks are one engine, attention per rank, experts over all',
  ],
  [
    'speculative',
    '<method>',
    "serving: speculative decoding with an EAGLE-3 head, the checkpoint's MTP layers, or n-gram: eagle3, mtp, ngram",
  ],
  ['spec-tokens', '<k>', 'draft tokens per step (default: eagle3 2, mtp 1 per MTP layer, ngram 3)'],
  [
    'spec-acceptance',
    '<p>',
    'chance each draft token is accepted, 0-1 (default: eagle3 0.65, mtp 0.85; ngram: required)',
  ],
  [
    'max-loras',
    '<n>',
    'serving: LoRA adapters at --lora-rank (vLLM --max-loras, SGLang --max-loras-per-batch, llama-server one --lora each)',
  ],
  [
    'max-num-seqs',
    '<n>',
    "serving: the engine's running cap where it is above --batch (vLLM --max-num-seqs or its default): sizes its start-up sampler",
  ],
  ['gpu', '<id>', "catalog GPU id for the fits verdict (see 'vramplan catalog gpus')"],
  [
    'framework',
    '<name>',
    `a stack or an engine, whose defaults apply: ${frameworkFlagNames().join(', ')} (default hf)`,
  ],
];

/**
 * Time flags (docs/DESIGN.md "Time"): `estimate` and `explain` take them (addTimeOptions); `plan` reads the
 * same from the scenario.
 */
export const TIME_FLAGS: readonly [string, string | null, string][] = [
  ['grad-accum', '<n>', 'micro-batches per optimizer step (default 1)'],
  [
    'power-limit',
    '<limit>',
    'GPU power limit: a fraction of board power (0.8) or watts (300W), 30-100% (default: board power)',
  ],
  ['gpus-per-node', '<n>', 'GPUs in one node (default min(gpus, 8))'],
  ['interconnect', '<link>', "within a node: nvlink, pcie (default: the GPU's catalog entry)"],
  ['inter-node-gbps', '<GB/s>', 'GB/s per GPU between nodes (default 25)'],
  [
    'quant-format',
    '<family>',
    'quantized kernels: bnb, gptq, awq, exl2, marlin, torchao, hqq, cutlass, gguf',
  ],
  [
    'request-rate',
    '<req/s>',
    'serving burst: requests a second the client sends the --batch prompts at, request i at i/rate (vllm bench serve / sglang.bench_serving --request-rate; default inf, all at once)',
  ],
];

/** Image inputs of multimodal models (the vision tokens join the sequence): estimate only. */
export const VISION_FLAGS: readonly [string, string, string][] = [
  ['images', '<n>', 'multimodal models: images per sample; their tokens join --seq (default 0)'],
  [
    'image-pixels',
    '<pixels>',
    "pixels per image (width x height; default: the model's processor default)",
  ],
];

/** Commander's camelCase option values back to the contract's kebab-case flags. */
export function rawFlagsOf(opts: Record<string, unknown>): RawFlags {
  const out: Record<string, unknown> = {};
  for (const [flag] of [...CONTRACT_FLAGS, ...TIME_FLAGS, ...VISION_FLAGS]) {
    const key = flag.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
    if (opts[key] !== undefined) out[flag] = opts[key];
  }
  return out;
}

export function addContractOptions(cmd: Command): Command {
  for (const [flag, value, description] of CONTRACT_FLAGS)
    cmd.option(`--${flag}${value ? ` ${value}` : ''}`, description);
  // The plain loss where the engine's recipes chunk it (profile chunkedLossByDefault: torchtitan).
  cmd.option(
    '--no-chunked-loss',
    "the plain loss on an engine whose recipes chunk it (torchtitan's)",
  );
  return cmd;
}

/** The time flags, defined once: `estimate` and `explain` time a configuration on the same settings. */
export function addTimeOptions(cmd: Command): Command {
  for (const [flag, value, description] of TIME_FLAGS)
    cmd.option(`--${flag} ${value}`, description);
  return cmd;
}

export function registerEstimate(program: Command): void {
  const cmd = program
    .command('estimate')
    .description('per-GPU peak memory of one configuration, component by component')
    .option(
      '--model <model>',
      'catalog id, Hugging Face repo id, or path to config.json / a checkpoint folder',
    )
    .option(
      '--from <file>',
      'read a training or serving config (axolotl, LLaMA-Factory, torchtune, TrainingArguments/TRL JSON or YAML, DeepSpeed JSON, Accelerate YAML, Unsloth, LitGPT, torchtitan; a vLLM, SGLang or llama-server command line or serve.sh, vLLM --config YAML); flags given beside it win',
    );
  addTimeOptions(addContractOptions(cmd));
  for (const [flag, value, description] of VISION_FLAGS)
    cmd.option(`--${flag} ${value}`, description);
  cmd
    .option('--json', 'print one JSON object (the estimate contract)')
    .action(async (opts: Record<string, unknown>) => {
      if (typeof opts.from === 'string') {
        // Only --from loads the config readers (and YAML), so plain estimates start as fast as before.
        const { runEstimateFrom } = await import('./estimate-from.js');
        process.exitCode = await runEstimateFrom(
          opts.from,
          opts.model,
          rawFlagsOf(opts),
          opts.json === true,
        );
        return;
      }
      const { runEstimate } = await import('./estimate-run.js');
      if (typeof opts.model !== 'string')
        throw new FlagError(
          'model',
          undefined,
          'a catalog id, Hugging Face repo id or config.json path (or --from <config file>)',
        );
      process.exitCode = runEstimate(
        await onlineModel(opts.model),
        rawFlagsOf(opts),
        opts.json === true,
      );
    });
}
