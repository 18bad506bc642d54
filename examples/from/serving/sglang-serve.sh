#!/usr/bin/env bash
# Written for vramplan with SGLang server arguments (https://docs.sglang.io/docs/advanced_features/server_arguments.md).
python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct \
  --tp 2 --context-length 8192 --max-running-requests 64 --kv-cache-dtype fp8_e4m3 --port 30000
