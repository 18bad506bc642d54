/**
 * A serving README says what the KV pool holds against the plan's sequences: part of it when they all fit; how
 * many fit at once (the rest waiting, as the expected speed assumes) when the pool is short of them, and the pool's
 * own size beside the KV the sequences would take (SGLang's static fraction: Llama-4-Scout int4 on one H100).
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const serve = (model: string, framework: string, weights: string, batch: number, seq: number) =>
  launchInputOf(model, 'h100-sxm', {
    method: 'inference',
    framework,
    weights,
    'kv-cache-dtype': 'fp8',
    batch: String(batch),
    seq: String(seq),
  });

describe('launch README: the KV pool against the plan’s sequences', () => {
  it('a pool short of the sequences: how many fit at once, and the pool’s own size', () => {
    const x = serve('llama-4-scout-17b-16e', 'sglang', 'int4', 32, 8192);
    const v = x.estimate.serving!;
    expect(v.sequencesAtMeanContext).toBeLessThan(32);
    const readme = renderLaunchReadme(x, buildLaunch(x));
    expect(readme).toContain(`${v.sequencesAtMeanContext} of the plan's 32 sequences`);
    expect(readme).not.toContain('use part of it');
    expect(readme).not.toContain('KV cache pool (pre-allocated)');
    expect(readme).toContain("KV cache of the plan's 32 sequences (the pool pre-allocates");
  });

  it('a pool that holds them all: part of it, labelled as the pre-allocated pool', () => {
    const x = serve('llama-3.1-8b', 'vllm', 'bf16', 8, 4096);
    expect(x.estimate.serving!.sequencesAtMeanContext).toBe(8);
    const readme = renderLaunchReadme(x, buildLaunch(x));
    expect(readme).toContain("the plan's 8 sequences at their mean context");
    expect(readme).toContain('use part of it');
    expect(readme).toContain('| KV cache pool (pre-allocated) |');
  });
});
