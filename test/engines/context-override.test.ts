// A published checkpoint whose config.json declares fewer positions than the base model the plan counts (Qwen's
// Qwen2.5 Instruct AWQ repositories: 32768, where the base configs declare 131072): vLLM and SGLang refuse a
// longer context unless the config is overridden, so serve.sh writes the YaRN override its model card gives.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { contextOverride } from '../../src/core/launch/checkpoints.js';
import { VLLM_SERVE_FLAGS } from '../../src/core/engines/vllm/rules.js';
import { SGLANG_SERVE_FLAGS } from '../../src/core/engines/sglang/rules.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

function input(framework: string, seq: number, model = 'qwen2.5-72b'): LaunchInput {
  const arch = resolveModel(model);
  const options = optionsFromFlags({
    method: 'inference',
    framework,
    weights: 'int4',
    gpus: 4,
    tp: 4,
    seq,
  });
  const g = findGpu('h100-sxm');
  return {
    arch,
    options,
    gpu: g,
    gradAccum: 1,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, g),
    modelRef: arch.hfId ?? model,
  };
}
interface Overrides {
  max_position_embeddings: number;
  rope_parameters: Record<string, unknown>;
}
const serve = (x: LaunchInput): string =>
  buildLaunch(x).files.find((f) => f.path === 'serve.sh')!.content;
const recorded = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/engine-args.json', import.meta.url), 'utf8'),
) as { engines: Record<string, { options: Record<string, unknown> }> };

describe('context past a published checkpoint’s config', () => {
  it('vLLM: the 128k plan on Qwen2.5-72B-Instruct-AWQ writes the YaRN override, factor 4', () => {
    const sh = serve(input('vllm', 131072));
    expect(sh).toMatch(/MODEL=\$\{MODEL:-Qwen\/Qwen2\.5-72B-Instruct-AWQ\}/);
    expect(sh).toContain('--max-model-len 131072');
    const m = /--hf-overrides '([^']+)'/.exec(sh);
    expect(m).not.toBeNull();
    const o = JSON.parse(m![1]!) as Overrides;
    expect(o.max_position_embeddings).toBe(131072);
    expect(o.rope_parameters).toMatchObject({
      rope_type: 'yarn',
      factor: 4,
      original_max_position_embeddings: 32768,
      rope_theta: 1_000_000,
    });
    expect(m![1]).toContain('"factor": 4.0');
  });
  it('vLLM: within the 32768 the config declares, no override', () => {
    expect(serve(input('vllm', 32768))).not.toContain('--hf-overrides');
  });
  it('SGLang writes the same override through --json-model-override-args', () => {
    const sh = serve(input('sglang', 40000));
    const m = /--json-model-override-args '([^']+)'/.exec(sh);
    expect(m).not.toBeNull();
    const o = JSON.parse(m![1]!) as Overrides;
    expect(o.max_position_embeddings).toBe(65536);
    expect(o.rope_parameters.factor).toBe(2);
  });
  it('only for the repositories known to declare fewer positions', () => {
    expect(contextOverride('Qwen/Qwen2.5-72B-Instruct-AWQ', 131072)).not.toBeNull();
    expect(
      contextOverride('hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4', 131072),
    ).toBeNull();
    expect(contextOverride('Qwen/Qwen2.5-7B-Instruct-AWQ', 200_000)).toBeNull();
  });
  it('the flags are in the recorded parsers (vllm 0.33.0, sglang 0.5.23)', () => {
    expect(VLLM_SERVE_FLAGS as readonly string[]).toContain('--hf-overrides');
    expect(SGLANG_SERVE_FLAGS as readonly string[]).toContain('--json-model-override-args');
    expect(recorded.engines.vllm!.options['--hf-overrides']).toBeDefined();
    expect(recorded.engines.sglang!.options['--json-model-override-args']).toBeDefined();
  });
});
