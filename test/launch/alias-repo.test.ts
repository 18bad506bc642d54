// A catalog alias that is its own Hugging Face repository (an instruction-tuned release, or a fine-tune with the
// base's architecture such as deepseek-ai/DeepSeek-R1-Distill-Llama-8B for llama-3.1-8b) is estimated as the catalog
// entry but launched as the repository the user named: the launch files load it, its published quantized copies are
// the ones made from it (catalogs/checkpoints.json quantizedFrom), and a format nobody publishes is made from it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelRepo } from '../../src/core/model/arch.js';
import { resolveModel } from '../../src/io/load-model.js';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const DISTILL = 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B';
const tmp = scratchDir('vramplan-alias-');
afterAll(() => tmp.remove());

function launch(name: string, args: string[]): string {
  const out = join(tmp.dir, name);
  const r = runCli(['launch', ...args, '--gpu', 'h100-sxm', '--out', out]);
  expect(r.status, r.stderr).toBe(0);
  return out;
}

describe('a catalog alias that names its own repository', () => {
  it('resolves to the entry with the repository kept; the entry id and its own hfId keep none', () => {
    const a = resolveModel(DISTILL);
    expect(a.id).toBe('llama-3.1-8b');
    expect(a.hfId).toBe('meta-llama/Llama-3.1-8B');
    expect(modelRepo(a)).toBe(DISTILL);
    expect(resolveModel(DISTILL.toLowerCase()).repo).toBe(DISTILL);
    expect(resolveModel('llama-3.1-8b').repo).toBeUndefined();
    expect(resolveModel('meta-llama/Llama-3.1-8B').repo).toBeUndefined();
  });

  it.runIf(cliBuilt())('serve.sh serves the named repository, not the entry', () => {
    const out = launch('serve', [
      '--model',
      DISTILL,
      '--method',
      'inference',
      '--framework',
      'vllm',
    ]);
    const sh = readFileSync(join(out, 'serve.sh'), 'utf8');
    expect(sh).toContain(`MODEL=\${MODEL:-${DISTILL}}`);
    expect(sh).not.toContain('meta-llama/Llama-3.1-8B');
  });

  it.runIf(cliBuilt())(
    'an int4 plan makes its copy from the named repository (no published AWQ of it is listed)',
    () => {
      const out = launch('int4', [
        '--model',
        DISTILL,
        '--method',
        'inference',
        '--framework',
        'vllm',
        '--weights',
        'int4',
      ]);
      const sh = readFileSync(join(out, 'serve.sh'), 'utf8');
      expect(sh).toContain(`quantize ${DISTILL} with llm-compressor`);
      expect(sh).not.toContain('hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4');
    },
  );

  it.runIf(cliBuilt())('the instruct alias finds the AWQ copy quantized from it', () => {
    const out = launch('instruct', [
      '--model',
      'meta-llama/Llama-3.1-8B-Instruct',
      '--method',
      'inference',
      '--framework',
      'vllm',
      '--weights',
      'int4',
    ]);
    expect(readFileSync(join(out, 'serve.sh'), 'utf8')).toContain(
      'MODEL=${MODEL:-hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4}',
    );
  });

  it.runIf(cliBuilt())('a fine-tune loads the named repository', () => {
    const out = launch('lora', ['--model', DISTILL, '--method', 'lora']);
    const args = JSON.parse(readFileSync(join(out, 'hf-args.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(args.model_name_or_path).toBe(DISTILL);
  });

  it.runIf(cliBuilt())(
    "a scenario's first serving plan serves and names the repository it plans",
    () => {
      const file = join(tmp.dir, 'distill.yaml');
      writeFileSync(
        file,
        [
          'name: R1 distill on one L40S',
          `model: ${DISTILL}`,
          'job:',
          '  kind: inference',
          '  context: 2048',
          '  promptTokens: 1024',
          '  concurrency: 16',
          '  outputTokens: 10000000',
          'hardware:',
          '  owned:',
          '    - { gpu: l40s, count: 1 }',
          '  counts: { min: 1, max: 1 }',
          '',
        ].join('\n'),
      );
      const plan = runCli(['plan', file, '--json']);
      expect(plan.status, plan.stderr).toBe(0);
      expect(plan.stdout).not.toContain('meta-llama/Llama-3.1-8B');
      const out = join(tmp.dir, 'scenario');
      const r = runCli(['launch', file, '--plan', '1', '--out', out]);
      expect(r.status, r.stderr).toBe(0);
      const sh = readFileSync(join(out, 'serve.sh'), 'utf8');
      expect(sh).toMatch(/DeepSeek-R1-Distill-Llama-8B/);
      expect(sh).not.toContain('meta-llama/Llama-3.1-8B');
    },
  );
});
