/**
 * vLLM V1's decode steps above its largest captured batch. V1 captures CUDA graphs for batches up to
 * max_cudagraph_capture_size, min(2 x max_num_seqs, 512) unless set (VllmConfig._set_cudagraph_sizes, vllm/config/vllm.py at
 * vllm-project/vllm@1f8758d584e8f599219d75adf658e182ed809a43; `cuda_graph_sizes = [min(self.max_num_seqs * 2, 512)]`
 * in SchedulerConfig.__post_init__ of the 0.10-0.11 releases, "prevents capture of many large graphs (>512)"), and a
 * step of more tokens takes no graph: GPUModelRunner._get_num_input_tokens pads to a captured size only where
 * `num_scheduled_tokens <= self.cudagraph_batch_sizes[-1]`, else "Eager mode" (vllm/v1/worker/gpu_model_runner.py). Such a
 * step still runs the torch.compile'd pieces (only --enforce-eager leaves compilation off, engines/vllm/eager-ops.ts):
 * each piece's Inductor wrapper launches its Triton and extern kernels from Python, and the attention op between the
 * pieces runs as the piecewise path runs it (engines/vllm/piecewise.ts).
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';

// The largest decode batch V1 captures at the API server's default max_num_seqs (256 or 1024: 2 x max_num_seqs >= 512).
export const VLLM_GRAPH_MAX_BATCH = 512; // vllm/config/vllm.py _set_cudagraph_sizes, vllm-project/vllm@1f8758d58

/**
 * The host's price of the compiled pieces run without graphs. Inductor's kernel launch on a GB200 host
 * (meta-pytorch/tritonbench#1017, nop_inductor_per_kernel): CachingAutotuner.run 6.8 µs with no argument and 9.1 µs with
 * 19 (a fused norm or rotary kernel's count), of which cuLaunchKernel 3.0 µs; the compiled graph's own call around its
 * kernels (the call() wrapper and CompiledFxGraph, meta-pytorch/tritonbench#1016's dispatch stack: about 12 µs through
 * CompiledFxGraph for one kernel's 6.5 µs) about 5.5 µs a piece. vLLM calls its pieces without TorchDynamo's guards
 * (its compiled backend dispatches them itself), so the e2e guard path of those benchmarks is not paid.
 */
export const VLLM_COMPILED_ABOVE_GRAPHS: NonNullable<FrameworkProfile['compiledAboveGraphs']> = {
  kernelSeconds: 9.1e-6, // meta-pytorch/tritonbench#1017, nop_inductor_per_kernel, 19 arguments
  pieceSeconds: 12e-6 - 6.5e-6, // meta-pytorch/tritonbench#1016, CompiledFxGraph less CachingAutotuner.run
};
