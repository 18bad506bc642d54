/** `vramplan estimate`: the estimate contract (DESIGN.md). parse → load → estimate → print. */
import type { Command } from 'commander';
import type { RawFlags } from '../schema/flags.js';

/** Contract flags: [flag, value placeholder or null for a switch, description]. */
export const CONTRACT_FLAGS: readonly [string, string | null, string][] = [
  ['method', '<method>', 'inference, full, lora, qlora (default full)'],
  [
    'weights',
    '<dtype>',
    'base weight storage: fp32, fp16, bf16, fp8, int8, nf4, fp4, int4 (default bf16; nf4 for qlora)',
  ],
  ['compute', '<dtype>', 'activation/compute dtype: fp32, fp16, bf16 (default bf16)'],
  ['master-weights', null, 'keep an fp32 master copy of trainable weights'],
  ['double-quant', null, 'nf4/fp4 double quantization of the block constants'],
  [
    'optimizer',
    '<name>',
    'adamw, adamw-8bit, paged-adamw, paged-adamw-8bit, adam-mini, sgd, sgd-momentum, lion, adafactor, none',
  ],
  [
    'optimizer-states',
    '<dtype>',
    'dtype of 32-bit-class optimizer states: fp32, bf16 (default fp32)',
  ],
  ['lora-rank', '<r>', 'LoRA rank (default 16)'],
  [
    'lora-targets',
    '<list>',
    'comma list of q,k,v,o,gate,up,down,embed,lm_head, or all-linear (default q,v)',
  ],
  ['batch', '<n>', 'micro-batch size per data-parallel rank (default 1)'],
  ['seq', '<tokens>', 'tokens per sample, or total context for inference (default 2048)'],
  ['checkpointing', '<mode>', 'none, selective, full, offload (default none)'],
  ['attention', '<impl>', 'eager, sdpa, flash (default sdpa)'],
  ['chunked-loss', null, 'the loss never materialises full-vocabulary fp32 logits'],
  ['optimizer-in-backward', null, 'step and free each gradient during backward'],
  ['zero', '<stage>', 'ZeRO / FSDP sharding stage 0-3 (default 0)'],
  ['offload', '<what>', 'none, optimizer, optimizer+params (default none)'],
  ['gpus', '<n>', 'total GPU count (default tp x pp x cp, i.e. 1)'],
  ['tp', '<n>', 'tensor-parallel degree (default 1)'],
  ['pp', '<n>', 'pipeline-parallel degree (default 1)'],
  ['cp', '<n>', 'context-parallel degree (default 1)'],
  ['sequence-parallel', null, 'with --tp: norm/dropout activations sharded over the TP group'],
  ['loss-parallel', null, 'with --tp: logits and loss kept vocabulary-sharded'],
  ['compile', null, 'torch.compile / fused kernels on (memory and time)'],
  ['sparsity', '<fraction>', 'fraction of zero weights in the linear layers, 0-1 (default 0)'],
  ['sparse-format', '<fmt>', 'csr, 2:4 (default csr)'],
  ['gpu', '<id>', "catalog GPU id for the fits verdict (see 'vramplan catalog gpus')"],
  [
    'framework',
    '<name>',
    'hf, torchtune, litgpt, unsloth, deepspeed, vllm, torchtitan (default hf)',
  ],
];

/** Commander's camelCase option values back to the contract's kebab-case flags. */
export function rawFlagsOf(opts: Record<string, unknown>): RawFlags {
  const out: Record<string, unknown> = {};
  for (const [flag] of CONTRACT_FLAGS) {
    const key = flag.replace(/-([a-z])/g, (_, ch: string) => ch.toUpperCase());
    if (opts[key] !== undefined) out[flag] = opts[key];
  }
  return out;
}

export function addContractOptions(cmd: Command): Command {
  for (const [flag, value, description] of CONTRACT_FLAGS)
    cmd.option(`--${flag}${value ? ` ${value}` : ''}`, description);
  return cmd;
}

export function registerEstimate(program: Command): void {
  const cmd = program
    .command('estimate')
    .description('per-GPU peak memory of one configuration, component by component')
    .requiredOption(
      '--model <model>',
      'catalog id, Hugging Face repo id, or path to config.json / a checkpoint folder',
    );
  addContractOptions(cmd)
    .option('--json', 'print one JSON object (the estimate contract)')
    .action(async (opts: Record<string, unknown>) => {
      const { runEstimate } = await import('./estimate-run.js');
      process.exitCode = runEstimate(String(opts.model), rawFlagsOf(opts), opts.json === true);
    });
}
