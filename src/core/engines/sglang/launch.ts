/** SGLang serving plans: `python -m sglang.launch_server` per replica (serve.sh) and check.sh. */
import { dataParallel, TORCH_DTYPE } from '../../launch/common.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';
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
import { sglangDefaults } from './memory.js';
import { SGLANG_VERSION } from './rules.js';
import { SGLANG_ROCM_INSTALL, sglangRocmInstall, sglangRocmRequirements } from './rocm-install.js';
import { ccOf, gfxOf } from '../kernels.js';
import { sglangLaunchesMxfp4Marlin } from './mxfp4-runner.js';
import { floatCompute } from '../../../schema/estimate.js';

const PORT = 30000; // ServerArgs.port default
// A replica over several machines: --nnodes, --node-rank and --dist-init-addr (the first machine's address and
// a free port) on each (https://docs.sglang.io/references/multi_node_deployment/multi_node.html, Llama 3.1 405B
// over two nodes, whose example port this is).
const DIST_INIT_PORT = 20000;

/** Why SGLang cannot serve the plan (its own checks; forbid rules are checked first), or null. */
export function sglangBlocker(x: LaunchPlan): string | null {
  return x.options.method === 'inference' ? null : 'the plan trains: SGLang serves only';
}

/** The launch_server flags of one replica, in SGLANG_SERVE_FLAGS order. */
export function sglangArgs(x: LaunchInput, online: boolean): string[] {
  const o = x.options;
  const d = sglangDefaults(x.gpu.memoryMiB * 2 ** 20, o.tp, o.pp);
  // DP attention: SGLang's --tp-size is every GPU of the engine, --dp-size its attention ranks, and
  // --max-running-requests the engine's total, split evenly over the ranks (sgl-project/sglang#20063).
  const ranks = o.dpAttention ? dataParallel(o) : 1;
  const args = [
    `--tp-size ${o.tp * ranks}`,
    ...(o.dpAttention ? [`--dp-size ${ranks}`, '--enable-dp-attention'] : []),
    // Expert parallelism, with or without DP attention (ServerArgs.ep_size: the experts over that many of the TP ranks).
    ...((o.ep ?? 1) > 1 ? [`--ep-size ${o.ep}`] : []),
    `--pp-size ${o.pp}`,
    `--context-length ${o.seq}`,
    `--max-running-requests ${o.batch * ranks}`,
    `--dtype ${TORCH_DTYPE[o.weights === 'fp16' ? 'fp16' : floatCompute(o.compute)]}`,
    // ServerArgs.kv_cache_dtype choices: auto, fp8_e5m2, fp8_e4m3, bf16 (https://docs.sglang.io/docs/advanced_features/server_arguments.md).
    `--kv-cache-dtype ${o.kvCacheDtype === 'fp8' ? 'fp8_e4m3' : 'auto'}`,
  ];
  // Speculative decoding as a chain of K draft tokens (top-k 1, K + 1 verified): EAGLE3 with the head in $DRAFT,
  // EAGLE over the checkpoint's MTP (NextN) layers, or NGRAM (https://docs.sglang.io/advanced_features/speculative_decoding.html).
  if (o.speculative) {
    const k = o.specTokens ?? 1;
    const algorithm = { eagle3: 'EAGLE3', mtp: 'EAGLE', ngram: 'NGRAM' }[o.speculative];
    args.push(`--speculative-algorithm ${algorithm}`);
    if (o.speculative === 'eagle3') args.push('--speculative-draft-model-path "$DRAFT"');
    args.push(
      `--speculative-num-steps ${k}`,
      '--speculative-eagle-topk 1',
      `--speculative-num-draft-tokens ${k + 1}`,
    );
  }
  // Multi-LoRA: adapters per batch at the plan's rank over every supported module; adapters load at start
  // (--lora-paths) or at run time (/load_lora_adapter): https://docs.sglang.io/advanced_features/lora.html
  if (o.maxLoras !== undefined)
    args.push(
      '--enable-lora',
      `--max-loras-per-batch ${o.maxLoras}`,
      `--max-lora-rank ${o.loraRank}`,
      '--lora-target-modules all',
      // The default csgmv backend refuses DP attention; the triton backend runs it (LoRAManager: "LoRA backend
      // ... does not support DP attention" unless supports_dp_attention, set on TritonLoRABackend; sglang 0.5.23).
      ...(o.dpAttention ? ['--lora-backend triton'] : []),
    );
  // A 16-bit checkpoint quantized while loading (--quantization fp8); published or made checkpoints carry their config.
  if (o.weights === 'fp8' && online) args.push('--quantization fp8');
  // MXFP4 experts on Hopper: the Marlin MoE the estimate times (time/mxfp4-pad.ts mxfp4Path), not the triton_kernel
  // runner SGLang picks for gpt-oss there (arg_groups/model_overrides/gpt_oss.py: moe_runner_backend auto ->
  // triton_kernel where triton_kernels imports and ep_size is 1, sglang 0.5.23 wheel). Never below SM90, where
  // mxfp4.py raises "MXFP4 Marlin requires SM90+." (engines/sglang/mxfp4-runner.ts).
  if (o.weights === 'mxfp4' && gfxOf(x.gpu.computeCapability) === null) {
    if (sglangLaunchesMxfp4Marlin(ccOf(x.gpu.computeCapability)))
      args.push('--moe-runner-backend marlin');
  }
  // The fraction the memory model used (its own default for this card, written out so both agree).
  args.push(`--mem-fraction-static ${d.memFractionStatic.toFixed(3)}`);
  // The radix cache reuses cached prefixes by default; off where the plan gives no --prefix-cache (at 0 it stays on,
  // which for LFM2's hybrids turns the overlap scheduler off: SGLANG_MEMORY.serialLoopModelTypes).
  if (o.prefixCacheFraction === undefined) args.push('--disable-radix-cache');
  // Prometheus /metrics for the run probe (vramplan_probe.py serve; ServerArgs.enable_metrics, store_true).
  args.push('--enable-metrics');
  return args;
}

export function emitSglang(x: LaunchInput): EngineOutput {
  const engine = 'SGLang';
  const blocked = sglangBlocker(x);
  if (blocked) return { engine, ok: false, reason: blocked };
  const o = x.options;
  const ck = servedCheckpoint(x);
  // A published checkpoint whose config declares fewer positions than the plan's context: SGLang refuses a
  // longer --context-length (srt/configs/model_config.py _derive_context_length at 0.5.23) unless overridden.
  const ctx = contextOverrideLine(ck, o.seq, '--json-model-override-args');
  const args = [...sglangArgs(x, quantizedWhileLoading(x, ck)), ...(ctx ? [ctx.arg] : [])];
  const replicas = o.dpAttention ? 1 : dataParallel(o);
  const per = o.dpAttention ? o.gpus : o.tp * o.pp;
  const lines = [
    '#!/usr/bin/env bash',
    `# Serve ${x.arch.id} with SGLang ${SGLANG_VERSION}: ${replicas} replica(s) of ${per} GPU(s) (generated by vramplan).`,
    '# pip install -r requirements.txt; each replica listens on its own port.',
    'set -euo pipefail',
    ...modelLines(ck),
    ...draftLines(x),
    ...prefixLine(o),
    ...shareLine(o, replicas),
  ];
  const command = (port: number, flags: readonly string[]) =>
    `python -m sglang.launch_server --model-path "$MODEL" --port ${port} \\\n  ${flags.join(' \\\n  ')}`;
  const nodeFlags = (nodes: number) => [
    `--nnodes ${nodes}`,
    '--node-rank "$NODE_RANK"',
    `--dist-init-addr "$MASTER_ADDR:${DIST_INIT_PORT}"`,
  ];
  const servers = serverLines(x, replicas, per, PORT, command, args, {
    flags: nodeFlags,
    headless: false,
  });
  if ('reason' in servers) return { engine, ok: false, reason: servers.reason };
  lines.push(...servers.lines);
  const ports = servers.ports;
  const rocm = gfxOf(x.gpu.computeCapability) !== null;
  return {
    engine,
    ok: true,
    ports,
    environment: rocm
      ? `on this AMD GPU not from PyPI, whose sglang[all] is the CUDA build: \`bash ${SGLANG_ROCM_INSTALL}\` builds it from source as SGLang's AMD guide does (or use its ROCm docker image)`
      : 'sglang[all] brings the torch, sgl-kernel and flashinfer it pins',
    files: [
      { path: 'serve.sh', content: `${lines.join('\n')}\n` },
      { path: 'check.sh', content: checkScript(ports, ck.ref) },
      {
        path: 'requirements.txt',
        // sglang[all] brings the torch, sgl-kernel and flashinfer it pins (python/pyproject.toml).
        content: rocm
          ? sglangRocmRequirements(SGLANG_VERSION)
          : `# SGLang environment: its own virtualenv. Resolved on PyPI in docs/launch-libs-2026-12-06.md (generated by vramplan).\nsglang[all]==${SGLANG_VERSION}\n`,
      },
      ...(rocm ? [{ path: SGLANG_ROCM_INSTALL, content: sglangRocmInstall(SGLANG_VERSION) }] : []),
    ],
    notes: [...checkpointNotes(ck, o.weights), ...(ctx ? [ctx.note] : [])],
  };
}
