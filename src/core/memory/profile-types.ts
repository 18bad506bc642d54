/**
 * Value types of single FrameworkProfile fields and the constants several engines' profiles share
 * (framework-profile.ts re-exports them), kept apart from the profile itself.
 */

/** How wide a data-parallel gradient reduce is (FrameworkProfile.gradReduce). */
export type GradReduceWidth = 'grad' | 'compute' | number;

/**
 * A llama.cpp-style build's decode graph, oldest first: every op its own kernel (`unfused`); ops fused but not the MoE
 * routing ops or the mat-vecs' epilogues (`no-moe-fusion`); MoE routing fused but not the mat-vecs' epilogues
 * (`no-gemv-fusion`); everything the engine now fuses (`fused`). Read from TimeOptions (time/decode-host.ts).
 */
export type DecodeGraphBuild = 'unfused' | 'no-moe-fusion' | 'no-gemv-fusion' | 'fused';

/** FrameworkProfile.vocabParallel: what the engine's vocabulary-parallel layers run each forward. */
export interface VocabParallelProfile {
  /** The embedding all-reduces its masked lookup's output (tokens x hidden, 16-bit). */
  embeddingAllReduce: boolean;
  /** Bytes of one logit as the shards are gathered (the head's output dtype). */
  logitBytes: number;
  /** Bytes read and written a logit by the copy that lays the gathered shards out along the vocabulary. */
  reorderBytesPerLogit: number;
}

/** A serving engine's frontend costs (FrameworkProfile.servingFrontend). */
export interface ServingFrontend {
  requestSeconds: number;
  tokenSeconds: number;
  templateParseSeconds: number;
}

// Upcast loss (HF ForCausalLMLoss `logits.float()`, torchtune/torchtitan `.float()` before cross_entropy):
// forward holds the 16-bit logits, an fp32 copy and the fp32 log_softmax output; backward holds
// log_softmax's saved output, the incoming gradient and the input gradient, all fp32 (memory.ts
// UPCAST_BACKWARD_PER_VOCAB; huggingface/transformers#30860 shows the upcast dominating).
export const UPCAST_LOSS = { upcast: true };

// PyTorch CUDA context (lazy loading) + cuBLAS/cuDNN, pytorch/pytorch#86509 (287 MB), pytorch/pytorch#107667 (~300 MB); + NCCL/cuBLASLt: 500 MiB.
export const TORCH_CONTEXT_MIB = 500;
// HF "Model training anatomy": 1343 MiB after a process's first CUDA op (https://huggingface.co/docs/transformers/model_memory_anatomy).
export const HF_CONTEXT_MIB = 1343;
