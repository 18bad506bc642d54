"""Time cross-entropy on transposed logits against the flattened call, on one CUDA GPU.

torchtune's recipes of mid-2024 and the loops copied from them compute
`nn.CrossEntropyLoss()(logits.transpose(1, 2), labels)` on (B, L, V) logits. CUDA `log_softmax` over dim 1 of that view
copies it contiguous and runs `cunn_SpatialSoftMaxForward` on B x ceil(L / 1024) thread blocks
(aten/src/ATen/native/cuda/SoftMax.cu `SpatialSoftMax_getGridSize`), where the flattened call `(B * L, V)` runs the
regular kernel over every row. This script times both, forward and forward + backward, at the shapes of the
BenjaminBossan/peft-experiments rows (Llama-3's 128,256 vocabulary, 2 x 511 shifted positions, fp32 logits), and
writes a JSON under calibration/measured/ for the time model to read.

    python3 scripts/measure/spatial_log_softmax.py --out calibration/measured/spatial-log-softmax-<gpu>.json
"""

import argparse
import json
import time

import torch
import torch.nn.functional as F


def timed(fn, iters):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / iters


def arms(batch, positions, vocab, dtype):
    logits = torch.randn(batch, positions, vocab, device="cuda", dtype=dtype, requires_grad=True)
    labels = torch.randint(0, vocab, (batch, positions), device="cuda")

    def transposed_fwd():
        with torch.no_grad():
            F.cross_entropy(logits.transpose(1, 2), labels)

    def flattened_fwd():
        with torch.no_grad():
            F.cross_entropy(logits.reshape(-1, vocab), labels.reshape(-1))

    def transposed_step():
        F.cross_entropy(logits.transpose(1, 2), labels).backward()

    def flattened_step():
        F.cross_entropy(logits.reshape(-1, vocab), labels.reshape(-1)).backward()

    return {
        "transposed_forward_s": transposed_fwd,
        "flattened_forward_s": flattened_fwd,
        "transposed_forward_backward_s": transposed_step,
        "flattened_forward_backward_s": flattened_step,
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--iters", type=int, default=10)
    a = p.parse_args()
    shapes = [(1, 165, 128256), (2, 255, 128256), (2, 511, 128256), (4, 511, 128256), (2, 1023, 32000)]
    results = []
    for batch, positions, vocab in shapes:
        for dtype in (torch.float32, torch.bfloat16):
            row = {"batch": batch, "positions": positions, "vocab": vocab, "dtype": str(dtype)}
            for name, fn in arms(batch, positions, vocab, dtype).items():
                row[name] = timed(fn, a.iters)
            results.append(row)
            torch.cuda.empty_cache()
    out = {
        "gpu": torch.cuda.get_device_name(),
        "sms": torch.cuda.get_device_properties(0).multi_processor_count,
        "torch": torch.__version__,
        "rows": results,
    }
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
