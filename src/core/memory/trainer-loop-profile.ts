/** Profile shapes of a trainer's own loop around the model (memory/framework-profile.ts). */

/**
 * What a library's per-expert MoE loop moves around each hit expert's matmuls: hidden-wide passes a routed row in
 * forward and in backward, a token in forward, and bytes per token, routed slot and expert of the router's expert mask
 * (time/moe-loop-traffic.ts).
 */
export interface MoeLoopTraffic {
  rowFwdPasses: number;
  rowBwdPasses: number;
  tokenFwdPasses: number;
  maskBytes: number;
}

/**
 * The gradient-norm clip a trainer runs every optimizer step (FrameworkProfile.gradClip). `normAllReduce`: the norm of
 * the local shards is all-reduced, one scalar collective per mesh dimension the gradients are sharded over
 * (time/optimizer-step.ts gradClipAllReduces), in series with the step.
 */
export interface GradClip {
  normRead: 'stepped' | 'grad';
  normCopyBytes: number;
  scalePasses: number;
  normAllReduce?: boolean;
}
