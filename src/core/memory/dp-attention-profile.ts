/** How a DP-attention engine steps its ranks and moves their tokens to its gathered MLPs and back (FrameworkProfile). */
export interface DpAttentionProfile {
  /**
   * Time, DP attention: a step in which any attention rank prefills runs every rank's forward without CUDA graphs (the
   * ranks agree each step on whether all of them can replay a graph), so the other ranks' decode takes its eager
   * launches while they wait for the prefill (time/expert-parallel.ts lockstepStalls). Absent: their graphs replay.
   */
  dpPrefillStepEager?: boolean;
  /** Time, DP attention: a rank's prefill forward takes server.sizing's chunkTokens / the ranks (graph-step.ts). */
  dpAttentionChunkSplit?: boolean;
  /**
   * Time, DP attention: the collectives around each gathered MLP (time/expert-parallel.ts gatherSeconds,
   * extendGatherSeconds). `everyLayer`: the dense MLP layers gather every rank's tokens too (their MLP tensor-parallel
   * over the group), not only the MoE layers. `extendAllReduce`: a step holding a prompt all-reduces a zero-filled
   * buffer of every rank's tokens before each gathered MLP and all-reduces its output after (the prompt's tokens in
   * both), where absent a prompt's tokens are not priced through the gathers. `decodeAllReduceBefore`: releases before
   * this one gather a decode step the same way (an all-reduce of the summed tokens, twice an all-gather's bytes, and
   * another for the output) rather than an all-gather and a reduce-scatter of the ranks' padded tokens. Absent: the
   * MoE layers only, an all-gather and a reduce-scatter a layer.
   */
  dpGather?: { everyLayer: boolean; extendAllReduce: boolean; decodeAllReduceBefore?: string };
}
