import type { SlidingMask } from '../../schema/time.js';

/** What an engine's decoder layer costs the host where the engine runs it eagerly, outside its graphs (FrameworkProfile). */
export interface EagerLayerProfile {
  /**
   * Time: ops a decoder layer issues from Python beyond the default count where the engine runs it eagerly (time/
   * decode-host.ts eagerLayerOps), by model_type, sliding window or not, the step's sequences and the build's in-layer
   * mask (TimeOptions.slidingMaskInLayer); each an eager op. Absent: 0.
   */
  eagerLayerExtraOps?: (type: string, sliding: boolean, rows: number, mask?: SlidingMask) => number;
  /**
   * Time: host seconds a decoder layer spends in the engine's own Python beyond the ops it issues, where the engine runs
   * it eagerly outside its graphs (module calls, custom-op dispatch, views and slices, the attention's forward-context
   * lookups; time/graph-step.ts), measured. Absent: 0.
   */
  eagerLayerHostSeconds?: number;
  /**
   * Time: ops an MLA decoder layer's attention and an MoE layer's routed block issue beyond the default count (the
   * layer's OPS_PER_LAYER_COMPILED and the engine's moeRoutingKernels) in releases before `before`, where the engine
   * runs the layer eagerly (time/graph-step.ts eagerForwardHostSeconds): the absorbed-MLA forward's copies, bmm and
   * PyTorch-native rotary, and a torch-native grouped router with the fused-MoE call's own kernels. Read for a run whose
   * TimeOptions.engineVersion names such a release; absent or a later release: none.
   */
  eagerMlaMoeLayerOps?: { before: string; mlaAttention: number; moe: number };
  /**
   * Time: the host's price of a decode step the engine runs above its largest captured batch (graphMaxBatch) through its
   * torch.compile'd pieces rather than eagerly (time/graph-step.ts compiledForwardHostSeconds): `kernelSeconds` each
   * kernel the compiled code launches, `pieceSeconds` each compiled piece's own call. Absent: such a step is priced as
   * the engine's eager layer (eagerLayerExtraOps, eagerLayerHostSeconds).
   */
  compiledAboveGraphs?: { kernelSeconds: number; pieceSeconds: number };
  /**
   * Time: whether the thread that runs the overlapped scheduler's step work (asyncStepHostSeconds) also issues the
   * step's forward, so that a forward run outside the graphs adds its launches to that work (time/graph-step.ts
   * overlappedHostSeconds). Absent: the longer of the two.
   */
  forwardOnStepThread?: boolean;
  /**
   * Time: the engine's own decode step inside the trainer's generate, for the model types whose generate the engine
   * replaces (time/objective.ts rolloutShapeOf): it runs each cached step through its own layer, which calls the
   * linears' weights, adapters and 4-bit dequantize kernels directly, in place of transformers' layer, PEFT's
   * lora.Linear.forward and bitsandbytes' Linear4bit. Absent: transformers' eager layer under PEFT and bitsandbytes.
   */
  generateDecode?: GenerateDecodeProfile;
  /**
   * Time: the bytes an eager forward's elementwise kernels move around its GEMMs in a prefill (time/
   * eager-prefill-passes.ts), per element of the tensor each pass runs over. Absent: none priced.
   */
  eagerPrefillPasses?: EagerPrefillPasses;
}

/** Bytes read plus written per element by an eager forward's elementwise passes (EagerLayerProfile.eagerPrefillPasses). */
export interface EagerPrefillPasses {
  /** Per hidden element, per RMSNorm (each layer's norms and the final one). */
  rmsNorm: number;
  /** Per q and k element, the rotary embedding. */
  rotary: number;
  /** Per q element, the attention output's copy to token-major before o_proj. */
  attnOutCopy: number;
  /** Per MLP-width element: a gated MLP's activation and gate multiply; an ungated one's activation. */
  gatedAct: number;
  act: number;
  /** Per hidden element, each of a layer's two residual adds. */
  residualAdd: number;
  /** Per attention score, under eager attention: scaling, mask add, fp32 softmax, cast back. */
  eagerScore: number;
  /** Per logit, the cast of the logits to fp32, in releases before `lastLogitsFrom` (logits for every position). */
  logitsCast: number;
  lastLogitsFrom: string;
}

/** A decode step's eager ops where the engine's own generate runs its layer (EagerLayerProfile.generateDecode). */
export interface GenerateDecodeProfile {
  /** The model_types it applies to. */
  modelTypes: readonly string[];
  /** Ops a decoder layer issues at one token a row, its linears' base matmuls and attention kernel included. */
  layerOps: number;
  /** Ops each biased linear adds (its bias add). */
  biasOps: number;
  /** Ops each adapted linear adds (the LoRA product folded into the base output), with no module call of its own. */
  adapterOps: number;
  /** Ops (kernel calls) each 4-bit linear adds to dequantize its weight. */
  bnb4Ops: number;
}
