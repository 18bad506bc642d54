/**
 * A training README's "How to run" numbers the download of what the files read before the run: torchtune's
 * `tune download <repo> --output-dir ./models/<model>` with the recipe's --ignore-patterns (torchtune v0.6.1
 * recipes/configs), torchtitan's download_hf_assets.py into hf_assets_path, after the power cap where there is one.
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { TUNE_CHECKPOINTS } from '../../src/core/engines/torchtune/checkpoints.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const howToRun = (
  model: string,
  flags: Record<string, unknown>,
  extra: Parameters<typeof launchInputOf>[3] = {},
): string => {
  const x = launchInputOf(model, 'h100-sxm', flags, extra);
  const readme = renderLaunchReadme(x, buildLaunch(x));
  return readme.slice(readme.indexOf('## How to run'), readme.indexOf('Your edits are safe'));
};

/** The numbered lines of a "How to run" section. */
const steps = (run: string): string[] => run.split('\n').filter((l) => /^\d+\. /.test(l));

describe('launch README: downloads before the run', () => {
  it('torchtune: tune download into ./models/<model>, skipping the copy of the weights the checkpointer does not read', () => {
    const run = howToRun('llama-3.1-8b', { method: 'lora', framework: 'torchtune' });
    expect(steps(run)).toEqual([
      '1. `tune download meta-llama/Llama-3.1-8B --output-dir ./models/llama-3.1-8b --ignore-patterns "original/consolidated.00.pth"` from this folder: the tokenizer and checkpoint files torchtune.yaml names (torchtune environment; HF_TOKEN set for a gated repository).',
    ]);
    // Llama 2's checkpointer reads the .bin shards: its recipes skip the safetensors copy.
    expect(steps(howToRun('llama-2-7b', { method: 'lora', framework: 'torchtune' }))[0]).toContain(
      '--output-dir ./models/llama-2-7b --ignore-patterns "*.safetensors"`',
    );
  });

  it("torchtune: the download names the folder torchtune.yaml's tokenizer and checkpointer read", () => {
    for (const id of ['llama-3.1-8b', 'llama-3-8b', 'mistral-7b-v0.1', 'gemma-2b']) {
      const x = launchInputOf(id, 'h100-sxm', { method: 'lora', framework: 'torchtune' });
      const yaml = buildLaunch(x).files.find((f) => f.path === 'torchtune.yaml')!.content;
      const dir = /--output-dir (\S+)/.exec(steps(renderLaunchReadme(x, buildLaunch(x)))[0]!)![1]!;
      expect(yaml).toContain(`path: ${dir}/${TUNE_CHECKPOINTS[id]!.tokenizer}`);
      expect(yaml).toMatch(new RegExp(`checkpoint_dir: ${dir.replace(/\./g, '\\.')}(/|\\n)`));
    }
  });

  it('torchtitan: the asset download is a numbered step, into the hf_assets_path the recipe reads', () => {
    const x = launchInputOf('llama-3.1-8b', 'h100-sxm', {
      method: 'full',
      framework: 'torchtitan',
      gpus: '8',
      zero: '3',
    });
    const readme = renderLaunchReadme(x, buildLaunch(x));
    const run = readme.slice(
      readme.indexOf('## How to run'),
      readme.indexOf('Your edits are safe'),
    );
    const [download] = steps(run);
    expect(download).toMatch(
      /^1\. `curl -fsSLO https:\/\/raw\.githubusercontent\.com\/pytorch\/torchtitan\/[0-9a-f]{40}\/scripts\/download_hf_assets\.py && python download_hf_assets\.py --repo_id meta-llama\/Llama-3\.1-8B --local_dir \.\/assets\/hf --assets tokenizer safetensors`/,
    );
    expect(download).toContain('./assets/hf/Llama-3.1-8B');
    const py = buildLaunch(x).files.find((f) => f.path === 'torchtitan_vramplan.py')!.content;
    expect(py).toContain('"assets" / "hf" / "Llama-3.1-8B"');
  });

  it('after the power cap, and on every machine of a multi-machine plan', () => {
    const run = howToRun(
      'llama-3.1-8b',
      { method: 'full', framework: 'torchtune', gpus: '16', zero: '3' },
      { powerLimitW: 600, gpusPerNode: 8 },
    );
    const [cap, download] = steps(run);
    expect(cap).toMatch(/^1\. `bash power-limit\.sh`/);
    expect(download).toMatch(/^2\. `tune download /);
    expect(download).toContain('on every machine (or once on a file system they share)');
  });

  it('an engine that downloads nothing first gets no numbered step', () => {
    expect(steps(howToRun('llama-3.1-8b', { method: 'lora', framework: 'hf-trainer' }))).toEqual(
      [],
    );
  });
});
