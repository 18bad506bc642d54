// Serving plans search tensor parallelism beyond the KV heads: vLLM's and SGLang's QKVParallelLinear give each rank
// one KV head (num_kv_head_replicas = tp / total_num_kv_heads) where TP >= the KV heads. Qwen3-Next (2 KV heads on its
// full-attention layers) is served at TP 4 by vLLM's recipe; the search offered it TP 1 and 2 only.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';

const SCENARIO = `
name: Qwen3-Next-80B-A3B, 64 users, 4 owned H100, vLLM
model: qwen3-next-80b-a3b
job: { kind: inference, context: 4096, promptTokens: 2048, concurrency: 64, outputTokens: 100000000 }
hardware: { owned: [{ gpu: h100-sxm, count: 4 }], counts: { min: 4, max: 4 } }
search: { engines: [vllm], weights: [fp8] }
rank: time
`;

describe('tensor parallelism beyond the KV heads when serving', () => {
  it('ranks a TP 4 plan of a 2-KV-head model on four GPUs', () => {
    const file = '/tmp/tp-kv-replicas.yaml';
    const r = plan({ ...planInputOf(file, parseScenario(file, SCENARIO)), top: 50 });
    expect(r.plans.some((p) => p.options.tp === 4)).toBe(true);
  });
});
