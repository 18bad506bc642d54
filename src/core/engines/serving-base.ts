/**
 * What every serving engine's memory profile shares (vLLM, SGLang, llama.cpp): only the fields whose values hold for
 * serving in general. Each serving engine spreads SERVING_BASE and states every figure of its own beside its source,
 * so a new engine inherits no other engine's measurements (test/engines/serving-base.test.ts).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';

export const SERVING_BASE = {
  // A server runs inference only: no backward pass, optimizer, gradients or trained adapters, so the training path's
  // switches sit at their no-training values (framework-profile.ts: each describes what a training step saves or
  // allocates; core/memory reads them for training methods only).
  untiesEmbeddings: false,
  embedTargetsTrainFully: false,
  gradsPersist: false,
  bnbSavesInput: false,
  bnbQuantizesAll: false,
  chunkedLossCompiles: false,
  fsdpRootUnit: false,
  eagerFp32RmsNorm: false,
  fusedSwiglu: true,
  sdpaExpandsKv: false,
  attnOutputCopy: false,
  fusedQkvView: false,
  loraDropout: false,
  fp32Adapters: false,
  kbitUpcastsToFp32: false,
  loss: { upcast: false, chunkedForward: 0, chunkedBackward: 0 },
  adamImpl: 'fused',
  deepspeedOptimizer: false,
  gatheredLayers: 0,
  // A server samples each prompt's next token only, from the logits of its last position: vLLM V1 gathers the hidden
  // states at logits_indices (vllm/v1/worker/gpu_model_runner.py), SGLang's LogitsProcessor keeps each extend's
  // last index (python/sglang/srt/layers/logits_processor.py), llama-server sets batch.logits for a prompt's last
  // token (tools/server/server.cpp update_slots).
  prefillLogits: 'last',
} satisfies Partial<FrameworkProfile>;
