/**
 * vLLM's GLM-4.5 MoE router in fp32 (FrameworkProfile.fp32Router; time/fp32-router.ts prices it). In the vllm 0.10.1
 * and 0.11.0 wheels (PyPI) `Glm4MoE.__init__` builds the gate as `nn.Linear(config.hidden_size,
 * config.n_routed_experts, bias=False, dtype=torch.float32)` ("In the transformers implementation, the gate isn't an
 * nn.Linear, so we cannot use ReplicatedLinear here") and `forward` calls `self.gate(hidden_states.to(dtype=
 * torch.float32))` (vllm/model_executor/models/glm4_moe.py): a cast of the layer's hidden states to fp32 and an fp32
 * GEMM of every token against all routed experts' gate rows, the gate unsharded on every TP rank. Neither wheel turns
 * on TF32 for matmuls (no `allow_tf32` or `set_float32_matmul_precision` in its Python), and torch leaves
 * `torch.backends.cuda.matmul.allow_tf32` off by default, so cuBLAS runs it as an SGEMM on the CUDA cores. The
 * vllm 0.33.0 wheel routes the same gate through `GateLinear` (fused_moe/router/gate_linear.py, with its own router
 * GEMM kernels), not read here; releases between 0.11.0 and 0.33.0 were not read, so the term stops after 0.11.0.
 * SGLang's `Glm4MoeGate` (sglang 0.5.4.post2 models/glm4_moe.py) keeps its weight in the model's dtype: not listed.
 */
import type { FrameworkProfile } from '../../memory/framework-profile.js';

export const VLLM_FP32_ROUTER: NonNullable<FrameworkProfile['fp32Router']> = {
  modelTypes: ['glm4_moe'], // Glm4MoeForCausalLM: GLM-4.5, GLM-4.5-Air, GLM-4.6
  from: '0.10.1', // read: vllm 0.10.1 models/glm4_moe.py, nn.Linear(..., dtype=torch.float32)
  before: '0.11.1', // read through vllm 0.11.0; 0.33.0 runs GateLinear (not read)
};
