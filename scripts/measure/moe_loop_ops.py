"""What transformers' per-expert MoE loop dispatches per expert, forward and backward, counted with torch.profiler on CPU.

Builds the model class's sparse MoE block (transformers' own `Qwen3MoeSparseMoeBlock` or `MixtralSparseMoeBlock`, as
installed) at toy width, trains every parameter (full fine-tuning), and profiles one forward and one backward at two
expert counts with every expert hit (512 tokens, top 2); the per-expert figures are the differences divided by the
difference in experts, so the router, the zeros and the reshapes around the loop cancel. Counted:

- dispatched: top-level aten calls (no aten call above them), what the host dispatches one by one;
- kernels: aten calls that would launch a CUDA kernel (views, metadata, allocation and dtype no-ops left out, a
  composite counted through the calls under it);
- autograd_nodes: the nodes backward evaluates;
- syncs: the calls that make the host wait for the device on CUDA (`nonzero` copies its count to the host,
  `_local_scalar_dense` is `.item()`). A `.tolist()` (transformers before 4.40) copies to the host without an aten
  call the CPU profiler shows; read those from the source.

Usage: python moe_loop_ops.py qwen3_moe|mixtral  (prints JSON; scripts/measure/README.md gives the venvs).
"""

import json
import sys

import torch
import transformers
from torch.profiler import ProfilerActivity, profile

# Calls that launch no CUDA kernel: views, metadata, allocation (the caching allocator), dtype no-ops.
NO_KERNEL = {
    'aten::view', 'aten::reshape', 'aten::_reshape_alias', 'aten::as_strided', 'aten::expand', 'aten::t',
    'aten::transpose', 'aten::permute', 'aten::unsqueeze', 'aten::squeeze', 'aten::select', 'aten::slice',
    'aten::detach', 'aten::alias', 'aten::empty', 'aten::empty_strided', 'aten::resize_', 'aten::unbind',
    'aten::split', 'aten::chunk', 'aten::narrow', 'aten::_unsafe_view', 'aten::lift_fresh', 'aten::result_type',
    'aten::empty_like', 'aten::numpy_T', 'aten::expand_as', 'aten::squeeze_', 'aten::unsqueeze_', 'aten::view_as',
    'aten::new_empty', 'aten::new_empty_strided', 'aten::set_', 'aten::resolve_conj', 'aten::resolve_neg',
    'aten::conj', 'aten::is_nonzero', 'aten::_has_compatible_shallow_copy_type', 'aten::to', 'aten::detach_',
}
SYNC_OPS = {'aten::nonzero', 'aten::_local_scalar_dense'}
TOKENS, TOP_K, HIDDEN, FFN = 512, 2, 64, 32
EXPERTS = (8, 16)


def block(model: str, experts: int):
    if model == 'qwen3_moe':
        from transformers.models.qwen3_moe.configuration_qwen3_moe import Qwen3MoeConfig
        from transformers.models.qwen3_moe.modeling_qwen3_moe import Qwen3MoeSparseMoeBlock

        cfg = Qwen3MoeConfig(hidden_size=HIDDEN, moe_intermediate_size=FFN, num_experts=experts,
                             num_experts_per_tok=TOP_K, norm_topk_prob=True)
        return Qwen3MoeSparseMoeBlock(cfg)
    if model == 'mixtral':
        from transformers.models.mixtral.configuration_mixtral import MixtralConfig
        from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock

        cfg = MixtralConfig(hidden_size=HIDDEN, intermediate_size=FFN, num_local_experts=experts,
                            num_experts_per_tok=TOP_K)
        return MixtralSparseMoeBlock(cfg)
    raise SystemExit(f'unknown model {model}')


def aten_ancestor(e):
    p = e.cpu_parent
    while p is not None and not p.name.startswith('aten::'):
        p = p.cpu_parent
    return p


def launches(e) -> bool:
    """An aten call that runs a kernel itself: not a no-kernel call, and every aten call under it is one."""
    if not e.name.startswith('aten::') or e.name in NO_KERNEL:
        return False
    return all(c.name in NO_KERNEL or not c.name.startswith('aten::') for c in e.cpu_children)


def counts(events, root_name: str) -> dict:
    (root,) = [e for e in events if e.name == root_name]
    inside = [e for e in events if e.thread == root.thread and e.name != root_name
              and e.time_range.start >= root.time_range.start and e.time_range.end <= root.time_range.end]
    aten = [e for e in inside if e.name.startswith('aten::')]
    nodes = [e for e in inside if e.name.startswith('autograd::engine::evaluate_function')]
    return {
        'dispatched': sum(1 for e in aten if aten_ancestor(e) is None),
        'kernels': sum(1 for e in aten if launches(e)),
        'autograd_nodes': len(nodes),
        'syncs': sum(1 for e in aten if e.name in SYNC_OPS),
    }


def run(model: str, experts: int) -> tuple[dict, dict]:
    torch.manual_seed(0)
    moe = block(model, experts)
    x = torch.randn(1, TOKENS, HIDDEN, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        with torch.profiler.record_function('FWD'):
            out, _ = moe(x)
        loss = out.float().pow(2).mean()
        with torch.profiler.record_function('BWD'):
            loss.backward()
    events = prof.events()
    return counts(events, 'FWD'), counts(events, 'BWD')


def main() -> None:
    model = sys.argv[1]
    lo, hi = EXPERTS
    (f1, b1), (f2, b2) = run(model, lo), run(model, hi)

    def per(a: dict, b: dict) -> dict:
        return {k: (b[k] - a[k]) / (hi - lo) for k in a if not (k == 'autograd_nodes' and a[k] == 0)}

    print(json.dumps({
        'transformers': transformers.__version__, 'torch': torch.__version__, 'model': model,
        'tokens': TOKENS, 'top_k': TOP_K, 'experts': list(EXPERTS),
        'forward_per_expert': per(f1, f2), 'backward_per_expert': per(b1, b2),
    }))


if __name__ == '__main__':
    main()
