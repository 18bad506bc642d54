/**
 * SGLang's custom all-reduce above its one-stage sizes (FrameworkProfile.twoStageAllReduce). sglang==0.5.6 runs every
 * tensor-parallel all-reduce under 8 MiB inside a fully NVLinked node through sgl-kernel's port of vLLM's kernel
 * (distributed/parallel_state.py `all_reduce`: "ca" where `should_custom_ar`; custom_all_reduce.py `_MAX_CAR_SIZE` 8192
 * x 1024, NCCL above; torch symmetric memory and MSCCL++ off by default, server_args.py). Its dispatch
 * (sgl-project/sglang sgl-kernel/csrc/allreduce/custom_all_reduce.cuh @0bb5d5e9 `CustomAllreduce::allreduce`, 36 blocks
 * of 512 threads): two ranks always `cross_device_reduce_1stage`; with full NVLink the one-stage kernel below 512 KiB at
 * up to 4 ranks and below 256 KiB at up to 8, else `cross_device_reduce_2stage`. The two-stage kernel timed in CUDA graphs on H100s at 4 ranks
 * (benchmarks/kernels/benchmark_device_communicators.py, ca_2stage at hidden 8192, bf16): 0.017 ms at 0.50 MB, 0.018
 * at 1.00, 0.027 at 2.00, 0.035 at 3.00 and 0.043 at 4.00 MB (vllm-project/vllm#24111; vllm-project/vllm#24532 reads
 * 0.017, 0.018, 0.026, 0.035, 0.042): from 0.5 to 4 MiB its bus bytes (1.5 x the message at 4 ranks) move at 211 GB/s
 * over a fixed 13.3 µs, where the one-stage kernel's 9 µs (engines/vllm/memory.ts allReduceSeconds) and the link's bus
 * rate would give 11.3 and 27.6 µs. Other cards and 8 ranks take the H100's figures (calibration/assumed.json): the
 * same tables time the kernel at 0.019-0.023 ms from 16 KiB to 1 MiB on B300s (vllm-project/vllm#37756).
 */
import type { TwoStageAllReduce } from '../../memory/layout-profiles.js';

const KiB = 1024;

export const SGLANG_TWO_STAGE_ALL_REDUCE: TwoStageAllReduce = {
  fromBytes: (tp) => (tp <= 4 ? 512 * KiB : 256 * KiB), // sgl-kernel custom_all_reduce.cuh REDUCE_CASE
  maxBytes: 8192 * KiB, // sglang==0.5.6 custom_all_reduce.py _MAX_CAR_SIZE
  seconds: 13.3e-6, // vllm-project/vllm#24111 ca_2stage on H100 at 4 ranks: 17 µs at 0.5 MiB less its bus bytes
  busBytesPerSecond: 211e9, // vllm-project/vllm#24111 ca_2stage on H100 at 4 ranks: 0.5 to 4 MiB, 17 to 43 µs
};
