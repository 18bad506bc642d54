/** Per-configuration facts the memory model reads: storage of each linear, the engine's profile, sizes. */
import { modelRepo, type Arch, type Linear, type LinearRole } from '../model/arch.js';
import { layerParams, linearParams, linearWeights, paramCounts } from '../model/params.js';
import { isGguf, type EstimateOptions } from '../../schema/estimate.js';
import { ggufLinearBytes } from '../model/native-weights.js';
import { FRAMEWORKS, type FrameworkProfile } from './frameworks.js';
import {
  adapterProfile,
  floatParamBytes,
  steppedElementBytes,
  trainableElementBytes,
} from './trainable-width.js';
import {
  PEFT_REACH,
  isTrained,
  adapterParams,
  joinedList,
  fusedExpertAdapters,
  loraAdapters,
  outerTrainedParams,
  scopeOf,
  type ExpertAdapters,
  type LoraAdapter,
  trainableSet,
  withoutFusedModules,
} from '../model/trainable.js';
import { peftRemaps } from '../model/peft-moe.js';
import { largestTensor, optimizerStateBytes, stateValueBytes } from './optimizer-states.js';
import { type ActCtx } from './activations.js';
import {
  CSR_INDEX_BYTES,
  FLOAT_BYTES,
  SEMI_STRUCTURED_META_BYTES_PER_ELEMENT,
  isFloatDtype,
  isFourBitFloat,
  quantConstantBytes,
  valueBytes,
  ggufTensorBytes,
} from '../model/dtypes.js';
import { MiB } from '../units.js';
import { visionFileBytes, type VisionFile } from './vision-file.js';
import { ligerPatches, ligerProfile } from '../kernels/liger.js';
import type { Breakdown, EstimateContext } from './types.js';
import { mxfp4PadBytes } from './mxfp4-pad-bytes.js';
import { expertShareOf, routedExperts, splitsExperts } from './expert-parallel.js';
import { floatCompute } from '../../schema/estimate.js';
import { OPTIMIZER_PROFILES } from '../engines/optimizers.js';

export type Parts = Omit<Breakdown, 'overhead'>;
export const sumParts = (p: Parts): number =>
  p.weights +
  p.quantConstants +
  p.adapters +
  p.masterWeights +
  p.gradients +
  p.optimizer +
  p.activations +
  p.logits +
  p.kvCache +
  p.buffers +
  (p.visionActivations ?? 0);

const UNTIED = new WeakMap<Arch, Arch>();
/** The architecture with a separate lm_head, as stacks that do not tie embeddings load it. */
function untied(arch: Arch): Arch {
  if (!arch.tiedEmbeddings || arch.embedParams === 0) return arch;
  let u = UNTIED.get(arch);
  if (!u) {
    u = { ...arch, tiedEmbeddings: false, lmHeadParams: arch.vocab * arch.hidden };
    UNTIED.set(arch, u);
  }
  return u;
}

const TEXT_ONLY = new WeakMap<Arch, Arch>();
/** The language model of a multimodal checkpoint, as an engine that converts only its text weights loads it. */
function textOnly(arch: Arch): Arch {
  if (!arch.vision) return arch;
  let t = TEXT_ONLY.get(arch);
  if (!t) {
    const { vision, outerLinears: _outer, ...rest } = arch;
    t = {
      ...rest,
      groups: arch.groups.filter((g) => g.name !== 'vision'),
      otherParams: arch.otherParams - (vision.params ?? 0),
    };
    TEXT_ONLY.set(arch, t);
  }
  return t;
}

/**
 * The model as the engine loads it: the language model alone where the engine converts only the text weights
 * (dropsVisionTower) or keeps the tower in a file of its own (visionFile, added apart when images are served).
 */
export const loadedModel = (arch: Arch, fw: FrameworkProfile): Arch =>
  fw.dropsVisionTower === true || fw.visionFile !== undefined ? textOnly(arch) : arch;

/** Layers of the model as the engine loads it: what a layer split (llama.cpp -ngl) counts. */
export const loadedLayers = (arch: Arch, fw: FrameworkProfile): number =>
  loadedModel(arch, fw).groups.reduce((a, g) => a + g.count, 0);

/**
 * The tower's own file where the engine loads it beside the text model and the estimate serves images
 * (FrameworkProfile.visionFile): its bytes, the whole model (whose tower runs), the profile's figures; else null.
 */
function visionFileOf(model: Arch, fw: FrameworkProfile, o: EstimateOptions): Setup['visionFile'] {
  if (!fw.visionFile || !o.images || !model.vision) return null;
  return { bytes: visionFileBytes(model, fw.visionFile), model, file: fw.visionFile };
}

/** Facts about an architecture that every estimate reads; computed once per Arch object. */
interface ArchFacts {
  P: ReturnType<typeof paramCounts>;
  /** Linear storage per (weights, compute, sparsity, format, double quant). */
  storage: Map<string, LinearBytes>;
  largestTensor: number;
  largestLinear: number;
  totalLayers: number;
}
const FACTS = new WeakMap<Arch, ArchFacts>();
function factsOf(arch: Arch): ArchFacts {
  let f = FACTS.get(arch);
  if (!f) {
    f = {
      P: paramCounts(arch),
      storage: new Map(),
      largestTensor: largestTensor(arch),
      largestLinear: largestLinear(arch),
      totalLayers: arch.groups.reduce((a, g) => a + g.count, 0),
    };
    FACTS.set(arch, f);
  }
  return f;
}

/**
 * Bytes of every layer linear in its storage format: values, quantization constants, biases. `expertBytes`: bytes
 * per value of routed experts the quantizer leaves unquantized (FrameworkProfile.unquantizedExperts), else null.
 * `towerBytes`: bytes per value of a vision tower the checkpoint keeps in 16 bits (floatTowerWeights), else null.
 */
function storageOf(
  arch: Arch,
  facts: ArchFacts,
  o: EstimateOptions,
  expertBytes: number | null,
  towerBytes: number | null,
) {
  const key = `${o.weights}|${o.compute}|${o.sparsity}|${o.sparseFormat}|${o.doubleQuant}|${expertBytes}|${towerBytes}`;
  let sum = facts.storage.get(key);
  if (!sum) {
    sum = { values: 0, constants: 0, bias: 0 };
    for (const g of arch.groups)
      for (const l of g.linears) {
        const st =
          towerBytes !== null && g.name === 'vision'
            ? floatStorage(l, g.count, towerBytes)
            : expertBytes !== null && g.experts > 1 && l.copies > 1
              ? floatStorage(l, g.count, expertBytes)
              : linearStorage(arch, l, g.count, o);
        sum.values += st.values;
        sum.constants += st.constants;
        sum.bias += st.bias;
      }
    facts.storage.set(key, sum);
  }
  return sum;
}

/** The routed experts' storage (linears with copies > 1) and the share of it one GPU holds. */
export function expertStorageOf(arch: Arch, o: EstimateOptions): NonNullable<Setup['experts']> {
  const out = { values: 0, constants: 0, bias: 0, share: expertShareOf(o, routedExperts(arch)) };
  for (const g of arch.groups)
    for (const l of g.linears)
      if (l.copies > 1) {
        const st = linearStorage(arch, l, g.count, o);
        out.values += st.values;
        out.constants += st.constants;
        out.bias += st.bias;
      }
  return out;
}

/**
 * lm_head held apart from the float parameters: k-bit where bitsandbytes quantizes it too (bnbQuantizesAll), and a
 * GGUF file's output head where its width takes a type of its own (ggufTensorBytes: Q8_0 off a multiple of 256).
 */
function kbitHeadOf(
  arch: Arch,
  fw: FrameworkProfile,
  o: EstimateOptions,
  quantized: boolean,
): { values: number; constants: number } | null {
  if (!quantized || arch.lmHeadParams === 0) return null;
  if (fw.bnbQuantizesAll)
    return {
      values: arch.lmHeadParams * valueBytes(o.weights),
      constants: quantConstantBytes(o.weights, arch.vocab, arch.hidden, o.doubleQuant),
    };
  if (!isGguf(o.weights)) return null;
  const b = ggufTensorBytes(o.weights, arch.hidden, true);
  return b === valueBytes(o.weights) ? null : { values: arch.lmHeadParams * b, constants: 0 };
}

/** Bytes of linear weights as stored: the values, their quantization constants, and the biases. */
type LinearBytes = { values: number; constants: number; bias: number };

/** A linear kept in a float dtype of `bytes` per value (no quantization constants). */
function floatStorage(l: Linear, count: number, bytes: number): LinearBytes {
  const n = linearWeights(l) * count;
  return {
    values: n * bytes,
    constants: 0,
    bias: (l.bias ? l.outFeatures * l.copies * count : 0) * bytes,
  };
}

/** Bytes of the linear weights in storage format, and of their quantization constants. */
function linearStorage(arch: Arch, l: Linear, count: number, o: EstimateOptions): LinearBytes {
  const n = linearWeights(l) * count;
  const rows = l.outFeatures * l.copies * count;
  // GGUF: per linear (ggufLinearBytes: the k-quant fallback at row widths off 256, MXFP4 experts kept).
  let values =
    n * (isGguf(o.weights) ? ggufLinearBytes(arch, l, o.weights) : valueBytes(o.weights));
  if (o.sparsity > 0) {
    if (o.sparseFormat === '2:4') {
      values = (n / 2) * valueBytes(o.weights) + n * SEMI_STRUCTURED_META_BYTES_PER_ELEMENT;
    } else {
      const nnz = n * (1 - o.sparsity);
      values =
        nnz * (valueBytes(o.weights) + CSR_INDEX_BYTES) +
        (rows + l.copies * count) * CSR_INDEX_BYTES;
    }
  }
  const constants = quantConstantBytes(o.weights, rows, l.inFeatures, o.doubleQuant);
  const biasBytes = isFloatDtype(o.weights)
    ? valueBytes(o.weights)
    : FLOAT_BYTES[floatCompute(o.compute)];
  return { values, constants, bias: (l.bias ? l.outFeatures * l.copies * count : 0) * biasBytes };
}

/**
 * What nvidia-smi shows: the allocated peak, the caching allocator's slack (a share of it plus the largest
 * one-off block), the CUDA context, and paged optimizer states living in unified memory.
 */
export function deviceBytesOf(
  fw: FrameworkProfile,
  allocated: number,
  transient: number,
  paged: number,
): number {
  return allocated * (1 + fw.allocatorSlack) + transient + fw.cudaContextMiB * MiB + paged;
}

// log_softmax backward: its saved fp32 output, the fp32 gradient from nll_loss and the fp32 input gradient.
export const UPCAST_BACKWARD_PER_VOCAB = 12;

/** Per-configuration facts every stage and phase reads: resolved once per estimate. */
export interface Setup {
  o: EstimateOptions;
  ctx: EstimateContext;
  fw: FrameworkProfile;
  arch: Arch;
  facts: ReturnType<typeof factsOf>;
  t: ReturnType<typeof trainableSet>;
  tp: number;
  pp: number;
  dp: number;
  /** Compute dtype bytes. */
  c: number;
  training: boolean;
  quantized: boolean;
  /** Bytes per non-linear parameter (embeddings, lm_head, norms). */
  floatBytes: number;
  /** Bytes per embedding and lm_head parameter: floatBytes unless a k-bit preparation cast them back to bf16. */
  embedBytes: number;
  /** lm_head is k-bit too (bnbQuantizesAll): its values and quantization constants, bytes. */
  head: { values: number; constants: number } | null;
  /** Bytes a k-bit matmul holds while it dequantizes its weight (the largest one), per GPU. */
  dequant: number;
  /** Bytes per value of routed experts the quantizer leaves unquantized (unquantizedExperts), else null. */
  expertBytes: number | null;
  linValues: number;
  linConstants: number;
  linBias: number;
  /**
   * Serving with expert parallelism or DP attention (memory/expert-parallel.ts): the routed experts' share of
   * linValues / linConstants / linBias and the share of them one GPU holds; null when TP splits them as the rest.
   */
  experts: (LinearBytes & { share: number }) | null;
  /**
   * The bytes over every layer that an engine padding MXFP4 experts for its kernel adds to one GPU's routed experts
   * (mxfp4-pad-bytes.ts); null where it pads none.
   */
  mxfp4Pad: { weights: number; constants: number } | null;
  /** Fraction of the layers on the busiest pipeline stage. */
  lf: number;
  /** Training with expert parallelism (trainingEpOf), else null. */
  trainingEp: TrainingEp | null;
  adapters: number;
  nTrain: number;
  trainBytes: number;
  masterPerParam: number;
  fp32GradPerParam: number;
  /** Bytes of one optimizer state value (optimizer-states.ts stateValueBytes). */
  stateValueBytes: number;
  states: number;
  paged: boolean;
  largest: number;
  shardStates: number;
  shardGrads: number;
  shardParams: number;
  offloadOpt: boolean;
  offloadParams: boolean;
  /** The sharded gradients live in host RAM (FrameworkProfile.hostGrads: this offload at this ZeRO stage). */
  hostGrads: boolean;
  /**
   * Each rank's gradient shards also live in host RAM till the host step, the GPU's figure kept
   * (FrameworkProfile.hostGradShards: FSDP's CPU offload). Not with the optimizer in backward, which steps and frees
   * each shard as it lands.
   */
  hostGradShards: boolean;
  /** The host holds a copy of each trained parameter and its gradient for the step (FrameworkProfile.hostStepCopies). */
  hostStepCopies: boolean;
  actCtx: ActCtx;
  /** Width of the residual stream (what checkpointing keeps per layer): fp32 under autocast. */
  streamBytes: number;
  /** The vision tower's own file, loaded with images (visionFileOf), else null. */
  visionFile: { bytes: number; model: Arch; file: VisionFile } | null;
  /** Tokens per rank in one micro-batch. */
  tokens: number;
  vocabShards: number;
  /** Vocabulary entries of the loss (0 for encoders fine-tuned with a task head). */
  V: number;
  /** The loss is a fused linear + cross-entropy kernel (Liger's): ligerLossBytes instead of logits. */
  fusedLinearLoss: boolean;
}

// Long on purpose: one object literal of per-configuration facts, each field with its source.
export function setupOf(model: Arch, o: EstimateOptions, ctx: EstimateContext): Setup {
  // --liger swaps in Liger's kernels where use_liger_kernel patches the model type (else it is a no-op).
  const liger = o.liger && ligerPatches(model.modelType);
  const fw = builtProfile(
    liger
      ? ligerProfile(FRAMEWORKS[o.framework], model.modelType, ctx.trainerReadsLogits !== true)
      : FRAMEWORKS[o.framework],
    ctx,
  );
  const loaded = loadedModel(model, fw);
  const arch = fw.untiesEmbeddings ? untied(loaded) : loaded;
  const facts = factsOf(arch);
  const P = facts.P;
  const t = trainableSet(o);
  const tp = o.tp;
  const pp = o.pp;
  const dp = Math.max(1, Math.floor(o.gpus / (tp * pp)));
  const c = FLOAT_BYTES[floatCompute(o.compute)];
  const training = o.method !== 'inference';
  const quantized = !isFloatDtype(o.weights);
  // Non-linear parameters (embeddings, lm_head, norms) stay in the float dtype; under bitsandbytes they
  // take the compute dtype, upcast to fp32 for training where the engine runs PEFT's prepare_model_for_kbit_training.
  const floatBytes = floatParamBytes(o, fw, ctx);
  // axolotl's loader keeps PEFT's fp32 upcast outside ZeRO-3 / FSDP for what it does not cast back: the experts.
  const castBack = training && quantized && ctx.kbitNormsCastBack === true && o.zero < 3;
  // TRL before v0.22 then ran peft_module_casting_to_bf16 under bf16: embed_tokens and lm_head back to bf16, the
  // norms left fp32 (huggingface/trl@v0.13.0 trl/trainer/utils.py; time/kbit-stream.ts).
  // A GGUF file's token embedding at its row width (the hidden size; the output head's type where tied: ggufTensorBytes).
  const embedBytes = isGguf(o.weights)
    ? ggufTensorBytes(o.weights, arch.hidden, arch.tiedEmbeddings)
    : training && quantized && ctx.kbitFp32Stream === true && o.compute === 'bf16'
      ? 2
      : floatBytes;
  const expertBytes =
    fw.unquantizedExperts?.includes(o.weights) &&
    ctx.linearizedExperts !== true &&
    ctx.quantizedExperts !== true
      ? castBack
        ? 4
        : floatBytes
      : null;
  // A quantized VL checkpoint whose quantizer left the tower out loads it at the float width (floatTowerWeights).
  const towerBytes = quantized && fw.floatTowerWeights?.includes(o.weights) ? floatBytes : null;
  const {
    values: linValues,
    constants: linConstants,
    bias: linBias,
  } = storageOf(arch, facts, o, expertBytes, towerBytes);
  // Training expert parallelism (torchtitan) keeps the sharded holdings' layout (efsdp x ep covers the dp_shard x cp
  // x tp ranks: parallel_dims.py) and changes what a layer gathers: trainingEpOf.
  const experts = splitsExperts(o) && !training ? expertStorageOf(arch, o) : null;
  const mxfp4Pad = mxfp4PadBytes(
    arch,
    fw,
    o,
    ctx,
    (l, n) => linearStorage(arch, l, n, o),
    experts ? experts.share : 1 / tp,
  );
  const head = kbitHeadOf(arch, fw, o, quantized);
  // k-bit matmuls dequantize one weight at a time (bitsandbytes MatMul4Bit: dequantize_4bit(B).to(A.dtype)),
  // into the dtype it was quantized from; from an fp16 copy that is fp16, then cast: both alive at once.
  const largestQuantized = Math.max(
    facts.largestLinear,
    head && fw.bnbQuantizesAll ? arch.lmHeadParams : 0,
    isFourBitFloat(o.weights) ? expertStackElements(arch, fw) : 0,
    ctx.quantizedExperts === true ? stackElements(arch) : 0,
  );
  // LLM.int8's backward casts its int8 weight straight to the input's dtype (MatMul8bitLt.backward).
  const fromFp16 = fw.bnbQuantizesAll && isFourBitFloat(o.weights) && o.compute !== 'fp16';
  const dequantBytes = fromFp16
    ? 2 + FLOAT_BYTES[floatCompute(o.compute)]
    : FLOAT_BYTES[floatCompute(o.compute)];
  const dequant = quantized ? (largestQuantized * dequantBytes) / o.tp : 0;
  // One width for memory and time (trainable-width.ts): adapters or weights, their gradients, the stepped master.
  const trainBytes = trainableElementBytes(o, fw, ctx);
  const needsMaster = steppedElementBytes(o, fw, ctx) > trainBytes;
  const stateBytes = stateValueBytes(o, fw, t.full, ctx);
  const nTrain = trainableParams(arch, o, fw, P.total);
  const adapters = t.full ? 0 : nTrain; // loraParams counts no adapters on a full fine-tune
  // torch.compile fuses norms and SwiGLU (Inductor), dropping the eager intermediates they save; torchtune
  // compiles whenever it chunks the loss (torchtune memory_optimizations: compile + CEWithChunkedOutputLoss).
  const fused = o.compile || (o.chunkedLoss && fw.chunkedLossCompiles);
  // A frozen nn.Linear does not save its input: autograd saves mm's self only when the weight needs a
  // gradient (tools/autograd/gen_variable_type.py guard_for); bitsandbytes k-bit matmuls save it anyway.
  const saves = (role: LinearRole): boolean =>
    isTrained(t, role) || (quantized && training && fw.bnbSavesInput);
  // torch.autocast (HF Trainer fp16/bf16 over an fp32 model); FSDP mixed precision casts parameters instead.
  const amp = training && o.weights === 'fp32' && c < 4 && !(o.zero >= 3 && dp > 1);
  const sp = o.sequenceParallel && tp > 1 ? tp : 1;
  return {
    o,
    ctx,
    fw,
    arch,
    facts,
    t,
    tp,
    pp,
    dp,
    c,
    training,
    quantized,
    floatBytes,
    embedBytes,
    head,
    dequant,
    expertBytes,
    linValues,
    linConstants,
    linBias,
    experts,
    mxfp4Pad,
    lf: Math.ceil(facts.totalLayers / pp) / facts.totalLayers,
    trainingEp: training ? trainingEpOf(arch, o) : null,
    adapters,
    nTrain,
    trainBytes,
    masterPerParam: needsMaster ? 4 : 0,
    // DeepSpeed casts the gradient partition to fp32 for the update (held on the GPU unless fw.fp32GradsInStep).
    fp32GradPerParam: needsMaster && fw.deepspeedOptimizer ? 4 : 0,
    stateValueBytes: stateBytes,
    states: optimizerStateBytes(o, nTrain, arch, t.full, stateBytes),
    paged: OPTIMIZER_PROFILES[o.optimizer].paged === true,
    largest: t.full ? facts.largestTensor : 0,
    shardStates: o.zero >= 1 ? dp : 1,
    shardGrads: o.zero >= 2 ? dp : 1,
    shardParams: o.zero >= 3 ? dp : 1,
    offloadOpt: o.offload !== 'none',
    offloadParams: o.offload === 'optimizer+params',
    hostStepCopies:
      training && o.offload === 'optimizer' && fw.hostStepCopies?.includes(o.zero) === true,
    hostGradShards:
      training &&
      !o.optimizerInBackward &&
      o.offload !== 'none' &&
      fw.hostGradShards?.includes(o.offload) === true,
    hostGrads:
      training &&
      o.offload !== 'none' &&
      fw.hostGrads !== undefined &&
      fw.hostGrads.offload.includes(o.offload) &&
      fw.hostGrads.zero.includes(o.zero),
    actCtx: { c, t, fw, o, seq: o.seq, tp, sp, saves, fused, amp },
    streamBytes: amp || kbitFp32Stream(o, ctx) ? 4 : c,
    visionFile: visionFileOf(model, fw, o),
    // Context parallelism: each rank of the cp group runs seq/cp of every sequence (ring attention keeps no
    // s² terms), so every per-token activation is per rank of the group (torchtitan context_parallel docs).
    tokens: (o.batch * o.seq) / (training ? o.cp : 1),
    // Logits and loss: vocabulary-sharded over TP with loss parallel (torchtitan loss_parallel), else
    // gathered whole on every TP rank.
    vocabShards: o.lossParallel ? tp : 1,
    // Final norm + loss (last stage only). Encoders are fine-tuned with a task head: no vocabulary logits.
    V: arch.kind === 'causal-lm' || arch.kind === 'encoder-decoder' ? arch.vocab : 0,
    // A trainer that reads the whole logits (EstimateContext.trainerReadsLogits) runs no fused loss.
    fusedLinearLoss:
      (liger || (o.chunkedLoss && fw.loss.fusedLinear === true)) && ctx.trainerReadsLogits !== true,
  };
}

/** The engine profile as the measured build ran it (EstimateContext: foreach AdamW, gradients freed each step, fp32 k-bit adapters). */
function builtProfile(fw: FrameworkProfile, ctx: EstimateContext): FrameworkProfile {
  // fp32 k-bit adapters where the build kept them (trainable-width.ts adapterProfile, time reads the same).
  const kept = adapterProfile(fw, ctx);
  if (!ctx.adamForeach && !ctx.gradsFreedEachStep) return kept;
  return {
    ...kept,
    ...(ctx.adamForeach ? { adamImpl: 'foreach' as const } : {}),
    // DeepSpeed's ZeRO keeps its gradient partitions allocated whatever zero_grad does.
    ...(ctx.gradsFreedEachStep && !fw.deepspeedOptimizer ? { gradsPersist: false } : {}),
  };
}

/**
 * The residual stream is fp32 under TRL's k-bit preparation (EstimateContext.kbitFp32Stream, time/kbit-stream.ts):
 * fp32 norm weights make every norm's output fp32, bitsandbytes' Linear4bit returns its input's dtype, and the
 * residual sum is fp32 from the first MLP on, so each checkpointed layer input is fp32.
 */
function kbitFp32Stream(o: EstimateOptions, ctx: EstimateContext): boolean {
  return ctx.kbitFp32Stream === true && o.method === 'qlora' && !o.compile;
}

/**
 * Elements of the largest fused expert projection of a layer (gate and up together, or down, over every routed
 * expert) where the engine dequantizes 4-bit experts a whole stack at a time (kbitExpertStacks); else 0.
 */
function expertStackElements(arch: Arch, fw: FrameworkProfile): number {
  const stacks = fw.kbitExpertStacks;
  if (!stacks || stacks.except.includes(arch.modelType)) return 0;
  return stackElements(arch);
}

/** The largest fused routed-expert parameter of a layer (elements): its gate and up together, or its down. */
function stackElements(arch: Arch): number {
  let m = 0;
  for (const g of arch.groups) {
    if (g.experts <= 1) continue;
    const routed = g.linears.filter((l) => l.copies > 1);
    const size = (roles: readonly string[]) =>
      routed
        .filter((l) => roles.includes(l.role))
        .reduce((a, l) => a + l.copies * l.inFeatures * l.outFeatures, 0);
    m = Math.max(m, size(['gate', 'up']), size(['down']));
  }
  return m;
}

/** Largest single linear weight of the layers (elements): what quantize-on-load and dequantize hold. */
export function largestLinear(arch: Arch): number {
  let m = 0;
  for (const g of arch.groups)
    for (const l of g.linears) m = Math.max(m, l.inFeatures * l.outFeatures);
  return m;
}

/**
 * trainableParams' memo, per architecture and framework profile (objects), by trainableParamsKey. The planner asks
 * for the count once per policy estimate (setupOf), thousands of times per search on a few distinct answers.
 */
const TRAINABLE_PARAMS = new WeakMap<Arch, Map<FrameworkProfile, Map<string, number>>>();

/**
 * The options' fields countTrainableParams reads, and the total, as a key: trainableSet's (method, all-linear, LoRA
 * targets, modules to save), the LoRA rank (engineLora, adapterParams, outerTrainedParams) and the images (scopeOf).
 * test/core/trainable-params-memo.test.ts changes every other field and checks the memo's answer.
 */
export function trainableParamsKey(o: EstimateOptions, total: number): string {
  const save = o.modulesToSave === undefined ? '' : joinedList(o.modulesToSave);
  return `${o.method}|${o.loraAllLinear}|${joinedList(o.loraTargets)}|${save}|${o.loraRank}|${o.images ?? 0}|${total}`;
}

/**
 * Parameters a fine-tune trains under the engine: the whole model (`total`), or its adapters as the engine's PEFT
 * builds them (engineLora's adapters and fused-expert adapters, and outerTrainedParams: embeddings trained fully
 * where the profile says).
 * The memory model and the planner's periodic spot saves read this one count.
 */
export function trainableParams(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  total: number,
): number {
  let byFw = TRAINABLE_PARAMS.get(arch);
  if (!byFw) TRAINABLE_PARAMS.set(arch, (byFw = new Map()));
  let byKey = byFw.get(fw);
  if (!byKey) byFw.set(fw, (byKey = new Map()));
  const key = trainableParamsKey(o, total);
  let n = byKey.get(key);
  if (n === undefined) byKey.set(key, (n = countTrainableParams(arch, o, fw, total)));
  return n;
}

/** trainableParams without its memo. */
export function countTrainableParams(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  total: number,
): number {
  const t = trainableSet(o);
  if (t.full) return total;
  const lora = engineLora(arch, o, fw);
  const scope = scopeOf(fw.loraReach ?? PEFT_REACH, o.images ?? 0);
  return (
    adapterParams(lora.adapters, lora.experts, o.loraRank) +
    outerTrainedParams(loraModel(arch, fw), t, o.loraRank, fw.embedTargetsTrainFully, scope)
  );
}

/**
 * The model whose linears the engine's LoRA adapts: as the engine loads it, with the checkpoint's fused-module marks
 * (Linear.module) dropped where the engine's own layers adapt each role (loraPerRole) or where it loads a re-export
 * of this checkpoint with the roles split (perRoleReexports).
 */
export function loraModel(arch: Arch, fw: FrameworkProfile): Arch {
  const loaded = loadedModel(arch, fw);
  return fw.loraPerRole === true || loadsPerRoleReexport(arch, fw)
    ? withoutFusedModules(loaded)
    : loaded;
}

/**
 * Whether the engine swaps the repository the launch files load (modelRepo: the alias named, else the entry's
 * Hugging Face id) for its per-role re-export (FrameworkProfile.perRoleReexports, lower-case ids).
 */
export function loadsPerRoleReexport(arch: Arch, fw: FrameworkProfile): boolean {
  const repo = modelRepo(arch);
  return repo !== null && fw.perRoleReexports?.includes(repo.toLowerCase()) === true;
}

/** The engine's LoRA on the layer groups: its adapters and, per MoE group, its fused experts' adapter parameters. */
export interface EngineLora {
  adapters: readonly LoraAdapter[];
  /** Adapter parameters of one layer's fused routed experts (model/peft-moe.ts fusedExpertLoraParams), per group. */
  experts: readonly ExpertAdapters[];
}

const ENGINE_LORA = new WeakMap<Arch, Map<string, EngineLora>>();
/**
 * The linears and fused modules the engine's LoRA adapts (model/trainable.ts loraAdapters over loraModel) and its
 * fused experts' adapters: what the memory count (trainableParams, loraParams) sums, read by the time model's FLOPs,
 * LoRA path and ZeRO-3 gathers. `expertLinears`: the build runs each routed expert as nn.Linear modules of its own
 * (a per-expert loop), which PEFT adapts one by one. Memoized per architecture and trainable set.
 */
export function engineLora(
  arch: Arch,
  o: EstimateOptions,
  fw: FrameworkProfile,
  expertLinears = false,
): EngineLora {
  const scope = scopeOf(fw.loraReach ?? PEFT_REACH, o.images ?? 0);
  const key = `${fw.id}|${o.method}|${o.loraAllLinear}|${joinedList(o.loraTargets)}|${o.loraRank}|${scope.tower}|${expertLinears}`;
  let byKey = ENGINE_LORA.get(arch);
  if (!byKey) ENGINE_LORA.set(arch, (byKey = new Map()));
  const hit = byKey.get(key);
  if (hit) return hit;
  const t = trainableSet(o);
  const f = expertLinears ? null : fusedExpertLora(fw, arch);
  const fused = f && !t.full ? { ...f, allLinear: t.allLinear === true } : null;
  const model = loraModel(arch, fw);
  const out: EngineLora = {
    adapters: loraAdapters(model, t, fused, scope),
    experts: fusedExpertAdapters(model, t, o.loraRank, fused, scope),
  };
  byKey.set(key, out);
  return out;
}

/**
 * How the engine's adapters on fused routed experts are counted (model/peft-moe.ts): PEFT's ParamWrapper, remapped or
 * not, whether ParamWrapper runs them (expertAdapters) or only creates them (expertLoraCount); else null.
 */
export function fusedExpertLora(fw: FrameworkProfile, arch: Arch): { remapped: boolean } | null {
  if (fw.expertAdapters !== 'param-wrapper' && fw.expertLoraCount !== 'param-wrapper') return null;
  return { remapped: peftRemaps(fw, arch.modelType) };
}

/**
 * Training expert parallelism (torchtitan expert_parallel_degree): `layer`, the largest layer's parameters one GPU
 * gathers, its dense part over TP and its routed experts whole over EP (MOE_SHARDING.md: routed experts Shard(0) on
 * EP, FSDP over efsdp = dp_shard x cp x tp / ep; torchtitan models/common at b5bcd76c); `topK`, the routed experts
 * each token is dispatched to (token_dispatcher.py AllToAllTokenDispatcher: one all-to-all of T x K rows of the
 * hidden size each way).
 */
export interface TrainingEp {
  ep: number;
  layer: number;
  topK: number;
  /** MoE layers of the model (every stage's). */
  moeLayers: number;
}

export function trainingEpOf(arch: Arch, o: EstimateOptions): TrainingEp | null {
  const ep = o.ep ?? 1;
  if (ep <= 1) return null;
  let layer = 0;
  let topK = 0;
  let moeLayers = 0;
  for (const g of arch.groups) {
    if (g.experts > 1 && g.name !== 'vision') moeLayers += g.count;
    let routed = 0;
    for (const l of g.linears)
      if (g.experts > 1 && l.copies > 1) {
        routed += linearParams(l);
        topK = Math.max(topK, l.activeCopies);
      }
    layer = Math.max(layer, (layerParams(g) - routed) / o.tp + routed / ep);
  }
  return topK > 0 ? { ep, layer, topK, moeLayers } : null;
}
