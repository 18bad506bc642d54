/**
 * vLLM's ROCm wheels: on an AMD GPU the PyPI wheel is the CUDA build ("the installer will silently fall back to
 * the CUDA wheel from PyPI, which will fail on AMD GPUs with errors like `libcudart.so: cannot open shared object
 * file`"); vLLM's ROCm wheels come from its own index, per version and ROCm variant, for Python 3.12, installed with
 * uv (vLLM docs/getting_started/installation/gpu.rocm.inc.md, "Pre-built wheels", at
 * 06d0369d75e060e83dffac3e0190ceff8fc37e12).
 */
export const vllmRocmLines = (version: string): string[] => [
  "# AMD GPU (ROCm): PyPI's vllm wheel is the CUDA build and fails here (libcudart.so); install vLLM's ROCm",
  '# wheel instead, in a Python 3.12 virtualenv (uv venv --python 3.12 --seed), with the ROCm variant its index lists:',
  `#   VLLM_ROCM_VARIANT=$(curl -s https://wheels.vllm.ai/rocm/${version} | grep -oP 'rocm\\d+' | head -1)`,
  `#   uv pip install -r requirements.txt --extra-index-url https://wheels.vllm.ai/rocm/${version}/$VLLM_ROCM_VARIANT`,
];
