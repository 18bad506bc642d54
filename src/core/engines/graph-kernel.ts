/**
 * The GPU time one kernel of a CUDA-graph decode step costs beyond its bytes at the modelled bandwidth, for an engine
 * that replays an unfused chain of library kernels (cuBLAS GEMMs, FlashInfer or FlashAttention decode, RMSNorm,
 * rotary, the KV store, the activation, the custom all-reduce) as vLLM and SGLang do (FrameworkProfile.
 * graphKernelSeconds). The graph removes the host's launches, not the GPU's own cost of a kernel boundary: each
 * kernel's setup and teardown, and the memory pipeline's bubble while the next kernel's first loads wait on the last
 * one's stragglers (Hazy Research, "Look Ma, No Bubbles!", 2025-05-27,
 * https://hazyresearch.stanford.edu/blog/2025-05-27-no-bubbles: an empty kernel still takes 1.3 µs inside a CUDA graph
 * on an H100, 2.1 µs outside one).
 *
 * Sized from that post's batch-1 Llama-3.2-1B decode on an H100: vLLM and SGLang "use at most 50% of available GPU
 * bandwidth" (its megakernel 78%, within 3% of an independent H100 timing of the same kernel, 972.78 µs a step,
 * msaroufim/megakernels-vs-cuda-graphs@e7b1b5eb llama/docs/RESULTS.md). 50% of 3.35 TB/s over the step's 2.47 GB
 * (the layers and the tied 128,256 x 2,048 head in bf16) is 1.475 ms; the model's step without kernel costs is 0.870
 * ms (the bytes at 0.85 of peak), and its 16 layers launch 12 kernels each: (1.475 - 0.870) ms / 192 = 3.15 µs. "At
 * most" makes it a lower bound, as is the post's "over 1.5x" (1.5 x 0.946 ms = 1.42 ms, 2.9 µs a kernel).
 *
 * The kernels' own figures agree in sum: a cuBLAS bf16 mat-vec replayed in a CUDA graph on an H100 takes 4.2 µs plus
 * its bytes at 3.16 TB/s (Llama-3.1-8B's QKV, 50.3 MB, 20.0 µs: vllm-project/vllm#17126; gemma-4-31B's 132 MB and 462 MB
 * shards, 46.0 and 150.5 µs: vllm-project/vllm#49363; torch-bf16 at batch 1 of bench_fp8_gemm.py, do_bench_cudagraph),
 * 1.2-1.5 µs over the model's 2.5 µs gap and 0.85 of peak at a TP shard of 5-15 MB; a decode attention layer at batch 1
 * and 1k tokens of context, its KV store included, takes 10.8 µs through FlashInfer and 11.0 through FlashAttention
 * (vllm-project/vllm#43232, card not named: an H200 by its long-context read rate), 2-5 µs over its kernels' gaps and
 * KV bytes; an RMSNorm takes 2.4 µs of GPU time
 * (sgl-project/sglang#22353's kernel table), about the gap. Over a layer's 12 kernels that is 0.6-1 µs a kernel above 2.5.
 */

// Per kernel, vLLM/SGLang CUDA-graph decode: https://hazyresearch.stanford.edu/blog/2025-05-27-no-bubbles (H100)
export const SERVING_GRAPH_KERNEL_SECONDS = 3.15e-6;

/**
 * The same cost in SM cycles (FrameworkProfile.graphKernelCycles): 3.15 µs at the H100 SXM's 1.98 GHz SM clock, so
 * H100 SXM and H200 rows keep 3.15 µs and a card of known SM count pays it at its own clock (A100 1.41 GHz: 4.4 µs;
 * RTX 4090 2.52 GHz: 2.5 µs). A kernel boundary inside a graph is the GPU's own work (the setup, the teardown, the
 * memory pipeline's bubble), as the llama.cpp profile prices it (engines/llama-cpp/memory.ts graphKernelCycles, whose
 * sources compare one build across cards: ggml-org/llama.cpp#6766, ahrefs/ocannl#488). Assumed, listed in
 * calibration/assumed.json; cards without an SM count keep the time.
 */
export const SERVING_GRAPH_KERNEL_CYCLES: number | undefined =
  SERVING_GRAPH_KERNEL_SECONDS * 1.98e9;
