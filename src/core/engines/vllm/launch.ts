/** Serving plans: a vLLM `serve` command with its check, or a transformers `generate` script. */
import { dataParallel, TORCH_DTYPE } from '../../launch/common.js';
import type { EstimateOptions } from '../../../schema/estimate.js';
import { HF_PINS } from '../hf/trainer.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
import { VLLM_VERSION } from './rules.js';
import { vllmMxfp4MoeDefault } from './mxfp4-backend.js';
import {
  contextOverrideLine,
  checkScript,
  draftLines,
  modelLines,
  prefixLine,
  shareLine,
  quantizedWhileLoading,
  servedCheckpoint,
  checkpointNotes,
  serverLines,
} from '../serve-common.js';
import { ccOf, fp8KvFlag, gfxOf } from '../kernels.js';
import { vllmRocmLines } from './rocm-wheel.js';
import { withRocmTorch } from '../../launch/rocm-torch.js';
import { VLLM_GPU_UTILIZATION } from './memory.js';
import { floatCompute } from '../../../schema/estimate.js';
import { SERVE_SCRIPT } from '../serve-folder.js';

export const CHECK_SCRIPT = 'check.sh';
export const GENERATE_SCRIPT = 'generate.py';
const PORT = 8000;
// The DP coordinator's port on the first machine (docs/serving/data_parallel_deployment.md's example, vllm-project/vllm).
const DP_RPC_PORT = 13345;

/**
 * The flags that start one machine's share of a replica over `nodes` machines. DP attention: each machine runs its
 * data-parallel ranks (--data-parallel-size-local), numbered from --data-parallel-start-rank, the first machine's
 * address and RPC port on all, --headless on the others (vllm-project/vllm docs/serving/data_parallel_deployment.md,
 * "Multi-node"). Tensor and pipeline parallelism: the multiprocessing executor over machines, --nnodes, --node-rank
 * and --master-addr, --headless on the others (docs/serving/parallelism_scaling.md "Running vLLM with
 * MultiProcessing" @096bd6a4).
 */
function vllmNodeFlags(o: EstimateOptions, nodes: number): string[] {
  if (o.dpAttention) {
    const local = dataParallel(o) / nodes;
    return [
      `--data-parallel-size-local ${local}`,
      `--data-parallel-start-rank $((NODE_RANK*${local}))`,
      '--data-parallel-address "$MASTER_ADDR"',
      `--data-parallel-rpc-port ${DP_RPC_PORT}`,
      '$HEADLESS',
    ];
  }
  return [
    `--nnodes ${nodes}`,
    '--node-rank "$NODE_RANK"',
    '--master-addr "$MASTER_ADDR"',
    '$HEADLESS',
  ];
}

/** Why vLLM cannot serve the plan (its rules, rules.ts), or null. */
export function vllmBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  if (o.method !== 'inference') return 'the plan trains: vLLM serves only';
  return null; // its forbid rules (rules.ts): launch/index.ts launchBlocker checks them first
}

/** Why this script cannot generate `o` as planned, or null. */
export function generateBlocker(o: EstimateOptions): string | null {
  if (o.method !== 'inference') return 'the plan trains: this script only generates';
  if (o.tp > 1 || o.pp > 1) return 'transformers generate here runs one GPU per process';
  return null;
}

export function vllmArgs(
  x: LaunchInput,
  published = false,
  // The base checkpoint quantized while loading (serve-common.ts quantizedWhileLoading); a made one carries its config.
  online = !published,
): { args: string[]; notes: string[] } | { reason: string } {
  const o = x.options;
  const blocked = vllmBlocker(x);
  if (blocked) return { reason: blocked };
  const notes: string[] = [];
  const args = [
    `--tensor-parallel-size ${o.tp}`,
    `--pipeline-parallel-size ${o.pp}`,
    // DP attention: one server whose data-parallel ranks share the MoE layers, expert parallel over them all
    // (EngineArgs.data_parallel_size / enable_expert_parallel at 99d7eb5d; max_num_seqs is each rank's).
    ...(o.dpAttention ? [`--data-parallel-size ${dataParallel(o)}`] : []),
    // Expert parallelism whenever the plan has it, DP attention or not: with --tensor-parallel-size alone vLLM runs
    // the MoE layers with ep_size = tp x dp and whole experts per rank, attention still tensor parallel
    // (FusedMoEParallelConfig.make, vllm/model_executor/layers/fused_moe/config.py in vllm 0.33.0: "TP = 2, DP = 1
    // and EP = True ... The experts are split between the 2 devices"); without the flag each expert is TP-sharded.
    ...((o.ep ?? 1) > 1 ? ['--enable-expert-parallel'] : []),
    `--max-model-len ${o.seq}`,
    `--max-num-seqs ${o.batch}`,
    // fp32 weights are served in the compute dtype; vLLM's --dtype is the weights' and activations' dtype.
    `--dtype ${TORCH_DTYPE[o.weights === 'fp16' ? 'fp16' : floatCompute(o.compute)]}`,
    // KV cache in the model dtype, or fp8 (CacheDType): what the memory estimate counts (memory.ts kvElemBytes);
    // fp8 (E4M3) on 8.9+, fp8_e5m2 below (engines/kernels.ts fp8KvFlag).
    `--kv-cache-dtype ${o.kvCacheDtype === 'fp8' ? fp8KvFlag('vllm', x.gpu.computeCapability) : 'auto'}`,
  ];
  switch (o.weights) {
    case 'nf4':
      // In-flight bitsandbytes 4-bit: https://docs.vllm.ai/en/latest/features/quantization/bnb.html
      args.push('--quantization bitsandbytes');
      break;
    case 'fp8':
      // Dynamic fp8 weight quantization of a 16-bit checkpoint: https://docs.vllm.ai/en/latest/features/quantization/fp8.html
      // (a published FP8 checkpoint carries its quantization config instead).
      if (online) args.push('--quantization fp8');
      // W8A8 needs FP8 tensor cores (compute capability 8.9+); Ampere runs FP8 weight-only (W8A16) Marlin kernels.
      if (Number(x.gpu.computeCapability ?? '0') < 8.9)
        notes.push(
          `fp8 on compute capability ${x.gpu.computeCapability ?? 'unknown'}: vLLM runs weight-only FP8 (Marlin, W8A16, needs 8.0+), not W8A8`,
        );
      break;
    case 'int8':
      notes.push(
        'int8: vLLM serves int8 from a W8A8 checkpoint (llm-compressor); point MODEL at one, vLLM reads its quantization from the config',
      );
      break;
    case 'int4':
      // AWQ/GPTQ checkpoints run through awq_marlin / gptq_marlin on 8.0+ (vLLM picks them from the config).
      if (!published)
        notes.push(
          'int4: vLLM serves int4 from an AWQ or GPTQ checkpoint (Marlin kernels); make one as serve.sh says, vLLM reads its quantization from the config',
        );
      break;
    default:
      break;
  }
  // MXFP4 experts on Hopper: the Marlin MoE the estimate times, not vLLM's triton_kernels default (mxfp4MoeBackendArgs).
  args.push(...mxfp4MoeBackendArgs(o, x.gpu.computeCapability));
  // Speculative decoding as planned (SpeculativeConfig: method, model, num_speculative_tokens; vllm/config/speculative.py
  // at 002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443): the draft head from $DRAFT, the checkpoint's MTP layers, or n-gram.
  const spec = speculativeConfig(o);
  if (spec) args.push(`--speculative-config ${spec}`);
  // Multi-LoRA: adapter slots at the plan's rank (LoRAConfig max_loras / max_lora_rank); adapters are added with
  // --lora-modules name=path, or at run time (VLLM_ALLOW_RUNTIME_LORA_UPDATING): https://docs.vllm.ai/en/latest/features/lora.html
  if (o.maxLoras !== undefined)
    args.push('--enable-lora', `--max-loras ${o.maxLoras}`, `--max-lora-rank ${o.loraRank}`);
  // A KV block size the estimate was given (CacheConfig.block_size, EngineArgs --block-size): the decode kernel it picks.
  if (o.kvBlockSize !== undefined) args.push(`--block-size ${o.kvBlockSize}`);
  // vLLM pre-allocates KV blocks up to this fraction of the GPU: the very fraction the memory model filled the
  // plan's pool to (memory.ts VLLM_GPU_UTILIZATION), so the launched pool is the planned one.
  const util = VLLM_GPU_UTILIZATION;
  args.push(`--gpu-memory-utilization ${util.toFixed(2)}`);
  // Automatic prefix caching (on by default in V1: EngineArgs._set_default_args at 99d7eb5d), written as the
  // plan counts it: on where the plan has a cached share of each prompt, off where its prefill counts none.
  args.push(o.prefixCacheFraction ? '--enable-prefix-caching' : '--no-enable-prefix-caching');
  return { args, notes };
}

/**
 * The MXFP4 MoE kernel the estimate times on Hopper. vLLM 0.33.0 picks gpt-oss's MoE backend in priority order
 * (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py `_get_priority_backends_for_gpt_oss`, read in the
 * vllm-0.33.0 wheel): triton_kernels' matmul_ogs (TRITON) ahead of Marlin wherever it runs (compute capability 9.x,
 * 10.x and 12.x, `_triton_kernel_moe_supports_current_device`), Marlin on 8.x; the engine argument `--moe-backend`
 * (KernelConfig.moe_backend, vllm/config/kernel.py) overrides it, and its `marlin` maps to MARLIN (BATCHED_MARLIN under
 * the batched format). The estimate times Marlin below 10.0 and on 12.x, where 0.33.0's default is Marlin too
 * (time/decode.ts kernelOn, mxfp4-backend.ts), and no timing of matmul_ogs on
 * Hopper prices the default (docs/time-model.md "gpt-oss on vLLM by kernel path"), so on 9.x the launch asks for
 * Marlin. The environment variable older builds read, VLLM_MXFP4_USE_MARLIN, is read nowhere in 0.33.0. The pinned
 * release's default comes from the per-release table (mxfp4-backend.ts vllmMxfp4MoeDefault): the argument is written
 * wherever that default is not the Marlin MoE the estimate times.
 */
export function mxfp4MoeBackendArgs(o: EstimateOptions, cc: string | null | undefined): string[] {
  if (o.weights !== 'mxfp4' || gfxOf(cc) !== null) return [];
  const c = ccOf(cc);
  if (c >= 10) return [];
  const d = vllmMxfp4MoeDefault(VLLM_VERSION, c);
  return d !== null && d !== 'marlin' ? ['--moe-backend marlin'] : [];
}

/** The --speculative-config JSON of the plan (single-quoted for the shell; $DRAFT spliced in), or null. */
function speculativeConfig(o: EstimateOptions): string | null {
  if (!o.speculative) return null;
  const k = o.specTokens ?? 1;
  if (o.speculative === 'eagle3')
    return `'{"method": "eagle3", "model": "'"$DRAFT"'", "num_speculative_tokens": ${k}}'`;
  return `'{"method": "${o.speculative}", "num_speculative_tokens": ${k}}'`;
}

export function emitVllm(x: LaunchInput): EngineOutput {
  const engine = 'vLLM';
  const o = x.options;
  const ck = servedCheckpoint(x);
  // The user's own checkpoint carries its quantization config, as a published one does.
  const base = vllmArgs(x, ck.published || ck.own === true, quantizedWhileLoading(x, ck));
  if ('reason' in base) return { engine, ok: false, reason: base.reason };
  // A published checkpoint whose config declares fewer positions than the plan's context: vLLM refuses a longer
  // --max-model-len (config/model.py _get_and_verify_max_len at 0.33.0) unless the config is overridden.
  const ctx = contextOverrideLine(ck, o.seq, '--hf-overrides');
  const v = ctx ? { args: [...base.args, ctx.arg], notes: [...base.notes, ctx.note] } : base;
  // DP attention: the data-parallel ranks are one server (--data-parallel-size), not replicas.
  const replicas = o.dpAttention ? 1 : dataParallel(o);
  const perReplica = o.dpAttention ? o.gpus : o.tp * o.pp;
  const lines = [
    '#!/usr/bin/env bash',
    `# Serve ${x.arch.id} with vLLM: ${replicas} replica(s) of ${perReplica} GPU(s) (generated by vramplan).`,
    '# pip install -r requirements.txt; each replica listens on its own port.',
    'set -euo pipefail',
    ...modelLines(ck),
    ...draftLines(x),
    ...prefixLine(o),
    ...shareLine(o, replicas),
  ];
  const command = (port: number, flags: readonly string[]) =>
    `vllm serve "$MODEL" --port ${port} \\\n  ${flags.join(' \\\n  ')}`;
  const servers = serverLines(x, replicas, perReplica, PORT, command, v.args, {
    flags: (nodes) => vllmNodeFlags(o, nodes),
    headless: true,
  });
  if ('reason' in servers) return { engine, ok: false, reason: servers.reason };
  lines.push(...servers.lines);
  // OpenAI-compatible completions endpoint: https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
  const ports = servers.ports;
  const rocm = gfxOf(x.gpu.computeCapability) !== null;
  return {
    engine,
    ok: true,
    ports,
    environment: rocm
      ? "vllm brings the torch it pins; on this AMD GPU from vLLM's ROCm wheel index, as requirements.txt says"
      : 'vllm brings the torch it pins',
    files: [
      { path: SERVE_SCRIPT, content: `${lines.join('\n')}\n` },
      { path: CHECK_SCRIPT, content: checkScript(ports, ck.ref) },
      { path: 'requirements.txt', content: vllmRequirements(o.weights === 'nf4', rocm) },
    ],
    notes: [...v.notes, ...(ck.own ? checkpointNotes(ck, o.weights) : [])],
  };
}

/**
 * vLLM's own environment: `vllm` pins the torch it was built against in its wheel metadata
 * (requirements/cuda.txt: torch==2.13.0 in the newest copy read, commit 009d5248…), so torch is not pinned here.
 */
/** The out-of-tree bitsandbytes quantization for vLLM (PyPI vllm-bnb-plugin, newest release 0.0.3). */
export const VLLM_BNB_PLUGIN_PIN = 'vllm-bnb-plugin==0.0.3';

export function vllmRequirements(bnb = false, rocm = false): string {
  return [
    '# vLLM environment: install in its own virtualenv (pip install -r requirements.txt);',
    `# vllm ${VLLM_VERSION} brings the torch it pins. Resolved on PyPI in docs/launch-libs-2026-12-06.md (generated by vramplan).`,
    ...(rocm ? vllmRocmLines(VLLM_VERSION) : []),
    `vllm==${VLLM_VERSION}`,
    // --quantization bitsandbytes: the vllm 0.33.0 wheel carries no bitsandbytes quantization (no
    // bitsandbytes module in it; QuantizationMethods in layers/quantization/__init__.py omits it); the
    // vllm-bnb-plugin package registers it (vllm_bnb_plugin/__init__.py register(), entry point
    // vllm.general_plugins) and needs bitsandbytes>=0.48.1 (its pyproject.toml): the HF stack's pin meets it.
    ...(bnb ? [VLLM_BNB_PLUGIN_PIN, GENERATE_BNB_PIN] : []),
    '',
  ].join('\n');
}

/** transformers generate: one process per GPU, each loading the model on its own device. */
export function emitGenerate(x: LaunchInput): EngineOutput {
  const engine = 'transformers generate';
  const o = x.options;
  const blocked = generateBlocker(o);
  if (blocked) return { engine, ok: false, reason: blocked };
  const notes: string[] = [];
  // BitsAndBytesConfig / FineGrainedFP8Config quantize a 16-bit checkpoint while loading:
  // https://huggingface.co/docs/transformers/main/en/quantization/bitsandbytes
  // https://huggingface.co/docs/transformers/main/en/quantization/finegrained_fp8
  let quant = 'None';
  if (o.weights === 'nf4' || o.weights === 'fp4')
    quant = `BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="${o.weights}", bnb_4bit_use_double_quant=${o.doubleQuant ? 'True' : 'False'}, bnb_4bit_compute_dtype=torch.${TORCH_DTYPE[floatCompute(o.compute)]})`;
  else if (o.weights === 'int8') quant = 'BitsAndBytesConfig(load_in_8bit=True)';
  else if (o.weights === 'fp8') quant = 'FineGrainedFP8Config()';
  else if (o.weights === 'int4')
    notes.push(
      'int4: point MODEL at an AWQ or GPTQ checkpoint; transformers reads its quantization from the config',
    );
  // --max-loras 1: one adapter kept unmerged, as estimated. PeftAdapterMixin.load_adapter injects PEFT's lora
  // layers beside the base linears and raises without PEFT installed (transformers 5.14.1 integrations/peft.py
  // load_adapter, check_peft_version in utils/peft_utils.py).
  const adapter = o.maxLoras !== undefined && o.maxLoras > 0;
  const dtype =
    o.weights === 'fp32'
      ? 'float32'
      : TORCH_DTYPE[o.weights === 'fp16' ? 'fp16' : floatCompute(o.compute)];
  // from_pretrained(device_map=, dtype=, quantization_config=) and generate(max_new_tokens=): transformers v5
  // takes dtype= (torch_dtype= is the deprecated v4 name): https://huggingface.co/docs/transformers/main/en/main_classes/model
  const py = [
    '"""Generate with transformers on one GPU per process (generated by vramplan).',
    '',
    `Plan: ${o.batch} sequences at once, up to ${o.seq} tokens each (prompt + new tokens).`,
    'Run one per GPU: CUDA_VISIBLE_DEVICES=<i> python generate.py "your prompt"',
    '"""',
    'import os',
    'import sys',
    '',
    'import torch',
    'from transformers import AutoModelForCausalLM, AutoTokenizer, BitsAndBytesConfig, FineGrainedFP8Config',
    '',
    `MODEL = os.environ.get("MODEL", ${JSON.stringify(x.modelRef)})`,
    `BATCH = ${o.batch}`,
    `MAX_LEN = ${o.seq}`,
    ...(adapter
      ? ['ADAPTER = os.environ["ADAPTER"]  # the LoRA adapter: a PEFT folder or Hub id']
      : []),
    '',
    'tokenizer = AutoTokenizer.from_pretrained(MODEL)',
    'tokenizer.padding_side = "left"',
    'if tokenizer.pad_token is None:',
    '    tokenizer.pad_token = tokenizer.eos_token',
    'model = AutoModelForCausalLM.from_pretrained(',
    '    MODEL,',
    `    dtype=torch.${dtype},`,
    `    quantization_config=${quant},`,
    '    device_map={"": 0},',
    ')',
    ...(adapter ? ['model.load_adapter(ADAPTER)'] : []),
    'prompts = (sys.argv[1:] or ["The capital of France is"]) * BATCH',
    'inputs = tokenizer(prompts[:BATCH], return_tensors="pt", padding=True).to(model.device)',
    'new_tokens = max(1, MAX_LEN - inputs["input_ids"].shape[1])',
    'out = model.generate(**inputs, max_new_tokens=new_tokens, do_sample=False)',
    'print(tokenizer.decode(out[0], skip_special_tokens=True))',
  ];
  return {
    engine,
    ok: true,
    files: [
      { path: GENERATE_SCRIPT, content: `${py.join('\n')}\n` },
      {
        path: 'requirements.txt',
        content: generateRequirements(x.gpu, quant.startsWith('BitsAndBytes'), adapter),
      },
    ],
    notes,
  };
}

/**
 * transformers' environment for generate.py (its own virtualenv: torch differs from vLLM's and torchtune's):
 * the Hugging Face training pins, whose keys (dtype=, BitsAndBytesConfig, device_map) were read (hf/trainer.ts).
 */
export const GENERATE_PINS = (['torch', 'transformers', 'accelerate'] as const).map(
  (n) => `${n}==${HF_PINS[n]}`,
);
// bitsandbytes 0.50.2 (HF_PINS) requires torch>=2.4,<3 (its wheel's Requires-Dist), as 0.50.1 did (pyproject.toml, tag 0.50.1).
export const GENERATE_BNB_PIN = `bitsandbytes==${HF_PINS.bitsandbytes}`;

export function generateRequirements(
  gpu: LaunchInput['gpu'],
  bnb: boolean,
  adapter = false,
): string {
  const head = [
    '# transformers environment for generate.py: its own virtualenv (pip install -r requirements.txt).',
    '# The Hugging Face pins below resolve together on PyPI (docs/launch-libs-2026-12-06.md; generated by vramplan).',
  ];
  const pins = withRocmTorch(gpu, [
    ...GENERATE_PINS,
    ...(bnb ? [GENERATE_BNB_PIN] : []),
    ...(adapter ? [`peft==${HF_PINS.peft}`] : []),
  ]);
  return `${[...head, ...pins].join('\n')}\n`;
}
