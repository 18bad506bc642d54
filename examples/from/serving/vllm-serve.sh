#!/usr/bin/env bash
# Written for vramplan with `vllm serve` flags of vLLM's engine arguments (https://docs.vllm.ai/en/latest/configuration/engine_args.html).
# Two replicas of Llama-3.1-8B-Instruct in AWQ int4, one per GPU, 8k context (8,000 tokens), 32 sequences each.
set -euo pipefail
MODEL=${MODEL:-hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4}
CUDA_VISIBLE_DEVICES=0 vllm serve "$MODEL" --port 8000 \
  --max-model-len 8k --max-num-seqs 32 --kv-cache-dtype fp8 \
  --gpu-memory-utilization 0.9 --enable-prefix-caching &
CUDA_VISIBLE_DEVICES=1 vllm serve "$MODEL" --port 8001 \
  --max-model-len 8k --max-num-seqs 32 --kv-cache-dtype fp8 \
  --gpu-memory-utilization 0.9 --enable-prefix-caching &
wait
