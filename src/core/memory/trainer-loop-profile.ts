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
