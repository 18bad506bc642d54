/**
 * Time: torch calls the engine's attention op issues from Python per layer in a decode step when its CUDA graphs
 * are piecewise (TimeOptions.piecewiseGraphs): for a layer of K/V heads (`kv`) and of an MLA latent (`mla`);
 * and `gapSeconds`, the GPU's idle time per such layer where the eager attention sits between two captured
 * pieces (its kernels launched outside the graphs, the next piece's graph launch); time/piecewise.ts. `sinks`: a
 * model with attention sinks (Arch.attentionSinks) runs `kv`'s backend only on GPUs of the compute capabilities
 * `kvCc` lists (their major version), a FlashInfer backend of `flashinfer.torch` calls on those of `flashinfer.cc`,
 * and elsewhere a Triton backend whose layer issues `torch` calls and `triton` JIT launches: `split` on a decode
 * step whose query blocks (rows / `blockQueries` query heads per K/V head, plus one per sequence) times the K/V
 * heads stay within `splitGrid`, `single` otherwise. `kvPythonSeconds`: the Python a `kv` layer's attention op
 * runs around its calls where the engine measured it (then `kv` counts the op's kernels only).
 * `pieceLaunchNodeSeconds`: the host's cudaGraphLaunch time for each kernel node of the captured pieces, which the
 * host replays one piece at a time between the eager attention calls. Absent: the engine captures attention in its
 * graphs.
 */
export interface PiecewiseAttentionCalls {
  kv: number;
  kvPythonSeconds?: number;
  mla: number;
  gapSeconds: number;
  pieceLaunchNodeSeconds?: number;
  sinks?: {
    kvCc: readonly number[];
    flashinfer: { cc: readonly number[]; torch: number };
    blockQueries: number;
    splitGrid: number;
    split: { torch: number; triton: number };
    single: { torch: number; triton: number };
  };
}
