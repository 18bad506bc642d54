/**
 * Time: the 'grouped' routed experts of a training run are torch._grouped_mm calls (transformers 5's grouped_mm
 * experts, unsloth_zoo's grouped_mm backend, torchtitan's GroupedExperts), which PyTorch runs as one grouped kernel only
 * on some GPUs (time/grouped-mm.ts). A FrameworkProfile field (`torchGroupedMm`).
 */
export interface TorchGroupedMmProfile {
  /**
   * Grouped matmuls each adapted expert projection adds beside its frozen one (Unsloth's separated LoRA: two); 0 where
   * the adapters fold into the weight (ParamWrapper's W + ΔW).
   */
  loraCalls: number;
  /**
   * Hidden-wide reads and writes per routed row of the wrapper's own gathers, permutes and sums around the calls, in
   * forward (absent: not counted).
   */
  rowPasses?: number;
  /** The same where torch.compile runs the model and fuses the wrapper's pointwise chain (absent: `rowPasses`). */
  compiledRowPasses?: number;
  /** The layer's forward calls for its own experts (absent: 2, the fused gate_up projection and down). */
  calls?: number;
  /**
   * By model_type: reads and writes in units of the expert width per routed row of the experts' own activation and bias
   * adds between and after the calls, in forward and eager, where the model's experts run other than the gated
   * activation every layer is priced at (time/grouped-mm.ts EAGER_GATED_ACT_PASSES). Absent: that count.
   */
  expertActivationPasses?: Readonly<Record<string, number>>;
  /**
   * A build that permuted the routed rows once more around its calls to pad each expert's rows to an alignment (a
   * build that says so: TimeOptions.alignPermute): hidden-wide reads and writes per routed row in forward, eager and
   * compiled, and the padding rows each layer's experts add (`alignRows` per expert). Absent: not counted.
   */
  alignPermute?: { rowPasses: number; compiledRowPasses: number; alignRows: number };
}
