#!/usr/bin/env bash
# Written for vramplan with llama-server flags (https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md):
# Llama-3.1-70B-Instruct in Q4_K_M, layers split over two GPUs, 4 slots of 8k context each.
CUDA_VISIBLE_DEVICES=0,1 llama-server -hf bartowski/Meta-Llama-3.1-70B-Instruct-GGUF:Q4_K_M \
  -ngl 99 -sm layer -c 32768 -np 4 -ctk q8_0 -ctv q8_0 -fa on --port 8080
