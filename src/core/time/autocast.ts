/**
 * The casts torch.autocast dispatches in a layer's forward over fp32 weights. Every fp32 tensor argument of an
 * op on the lower-precision list (linear, matmul, bmm) is cast with its own `.to(dtype)` call, a dispatched op
 * and a kernel: model weights (fp32 leaves that require grad) once per autocast region, from a cache, and any
 * other fp32 argument on every call (`cached_cast`, pytorch/pytorch aten/src/ATen/autocast_mode.cpp @008ec6b).
 * Norms run on the fp32 list (layer_norm; RMSNorm upcasts itself), so the linears that read a norm's output
 * cast their input too, and eager attention's fp32 softmax output is cast again for its matmul with V
 * (https://pytorch.org/docs/stable/amp.html#cuda-ops-that-can-autocast-to-float16). Each cast's backward casts
 * the gradient back: one more op, which the backward's twice-the-forward op count already carries.
 */
import type { Arch, LinearRole } from '../model/arch.js';

/** Linears that read a norm's fp32 output (attention inputs, the MLP's first linears). */
const NORM_FED: ReadonlySet<LinearRole> = new Set<LinearRole>([
  'q',
  'k',
  'v',
  'q_a',
  'kv_a',
  'gate',
  'up',
]);

/** Cast ops autocast adds to one layer's forward: weight and bias casts, fp32 input casts, eager P·V. */
export function autocastCastOps(arch: Arch, eagerAttention: boolean): number {
  const g = arch.groups.find((x) => x.name !== 'vision');
  if (!g) return 0;
  let ops = eagerAttention ? 1 : 0;
  for (const l of g.linears) ops += 1 + (l.bias ? 1 : 0) + (NORM_FED.has(l.role) ? 1 : 0);
  return ops;
}
