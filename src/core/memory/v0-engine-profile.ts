/** What vLLM's V0 engine (the default before v0.8) costs a decode step beyond its GPU work (FrameworkProfile). */
export interface V0EngineProfile {
  /**
   * vLLM's V0 engine (the default before v0.8): host work per decode step the GPU waited for (scheduling, input
   * preparation, the sampled tokens' output processing), its growth per sequence, seconds (TimeOptions.v0Scheduler).
   */
  v0StepHostSeconds?: number;
  v0SeqHostSeconds?: number;
  /** Their output-processing part, beside the GPU from release `since` on (TimeOptions.engineVersion; time/v0-host.ts). */
  v0OutputHost?: { since: string; stepSeconds: number; seqSeconds: number };
  /**
   * Time, with TimeOptions.v0Scheduler: the longest sequence a V0 decode step replays a CUDA graph for by default
   * (`--max-seq-len-to-capture`; TimeOptions.maxSeqLenToCapture where the run sets it); a step whose sequences are
   * longer runs eagerly, each kernel launched from the host (time/graph-step.ts aboveGraphs). Absent: no limit.
   */
  v0GraphMaxSeqLen?: number;
  /**
   * Time, with TimeOptions.v0Scheduler and without v0ChunkedPrefill: how its scheduler steps a served burst
   * (time/length-spread.ts). `prefillFirst`: a step that admits waiting requests prefills them alone, no decode beside
   * them; `batchedTokens`: a step's token budget (max_num_batched_tokens where the run set none) by the run's
   * max_model_len (TimeOptions.maxModelLen; the model's own positions where the run set none). Absent: the V1 step.
   */
  v0Scheduler?: { prefillFirst: boolean; batchedTokens: (maxModelLen: number) => number };
}
