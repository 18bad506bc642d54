/**
 * `plan --from` and `estimate --from` time the same config the same way: the objective's phases (GRPO's
 * rollout, DPO's doubled sequences and reference forward) and the file's accumulation, for every `--from`
 * fixture (test/fixtures/from, sources in SOURCES.txt).
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, ROOT, runCli } from '../helpers/run-cli.js';

const FIX = join(ROOT, 'test', 'fixtures', 'from');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n === 'SOURCES.txt' ? [] : [p];
  });
}

/**
 * The catalog model for fixtures that name none, or one that is not known offline (a fine-tune or mirror of
 * it); the rest use the model the file names.
 */
const MODEL: Record<string, string> = {
  'accelerate/deepspeed-zero2.yaml': 'llama-3.1-8b',
  'accelerate/fsdp2.yaml': 'llama-3.1-8b',
  'axolotl/deepspeed_configs/zero3_bf16_cpuoffload_params.json': 'llama-3.1-8b',
  'llamafactory/examples/deepspeed/ds_z2_offload_config.json': 'llama-3.1-8b',
  'llamafactory/examples/deepspeed/ds_z3_config.json': 'llama-3.1-8b',
  'alignment-handbook/recipes/smollm3/dpo/apo.yaml': 'smollm3-3b',
  'alignment-handbook/recipes/zephyr-141b-A35b/orpo/config_full.yaml':
    'mixtral-8x22b-instruct-v0.1',
  'alignment-handbook/recipes/zephyr-7b-beta/dpo/config_full.yaml': 'mistral-7b-v0.1',
  'alignment-handbook/recipes/zephyr-7b-beta/dpo/config_qlora.yaml': 'mistral-7b-v0.1',
  'axolotl/examples/mistral/bigstral/bigstral-ds-zero3.yaml': 'mixtral-8x22b-instruct-v0.1',
  'open-r1/recipes/DeepSeek-R1-Distill-Qwen-1.5B/grpo/config_demo.yaml': 'qwen2.5-1.5b',
  'open-r1/recipes/Qwen2.5-1.5B-Instruct/grpo/config_demo.yaml': 'qwen2.5-1.5b',
  'open-r1/recipes/Qwen2.5-Coder-7B-Instruct/grpo/config_codeforces.yaml': 'qwen2.5-7b',
};

interface Timed {
  status: number | null;
  step?: number;
  tokens?: number;
  error: string;
}

function timed(command: 'estimate' | 'plan', file: string): Timed {
  const model = MODEL[relative(FIX, file)];
  const args = [command, '--from', file, '--gpu', 'h100-sxm', '--json'];
  if (model) args.push('--model', model);
  const r = runCli(args);
  if (r.status !== 0 && r.status !== 2) return { status: r.status, error: r.stderr };
  const out = JSON.parse(r.stdout) as {
    time: { stepSeconds: number; tokensPerSecondPerGpu: number };
  };
  return {
    status: r.status,
    step: out.time.stepSeconds,
    tokens: out.time.tokensPerSecondPerGpu,
    error: '',
  };
}

beforeAll(() => expect(cliBuilt()).toBe(true));

describe('plan --from and estimate --from give the same time for the same config', () => {
  const all = files(FIX).sort();
  it('covers every --from fixture', () => expect(all.length).toBeGreaterThanOrEqual(33));
  for (const file of all)
    it(relative(FIX, file), () => {
      const e = timed('estimate', file);
      const p = timed('plan', file);
      if (e.status === 1) {
        // An engine refusal `estimate` reports (a rule with its source); `plan --from` explains the fit.
        expect(e.error).toMatch(/^vramplan: --framework: .*\(rule /);
        return;
      }
      expect(p.error).toBe('');
      // The objective's step (rollout, reference log-probs, ...), not an SFT micro-step.
      expect(p.step, 'plan --from step seconds').toBe(e.step);
      expect(p.tokens, 'plan --from tokens/s per GPU').toBe(e.tokens);
    });
});
