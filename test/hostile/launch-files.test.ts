/**
 * Launch folders that would do the wrong thing: a multi-node power cap addresses one machine's GPUs and
 * says to run on each; `--model path/config.json` loads the folder; a plan no engine can write, or a
 * plans.json with more GPUs than any flag allows, is one `vramplan:` line, exit 1, nothing written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-launch-files-');
afterAll(scratch.remove);
beforeAll(() => expect(cliBuilt()).toBe(true));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: scratch.dir,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A plans.json of one FSDP plan on A100s (8 per machine), as `plan --json` writes it, then edited. */
interface PlanJson {
  options: Record<string, unknown>;
  hardware: Record<string, unknown>;
}
function plansFile(name: string, edit: (plan: PlanJson) => void): string {
  const plan: PlanJson & Record<string, unknown> = {
    id: 'p1',
    options: JSON.parse(run('estimate', '--model', 'llama-2-7b', '--zero', '3', '--json').stdout)
      .options as Record<string, unknown>,
    choices: { gradAccum: 1 },
    hardware: { gpuId: 'a100-80gb-sxm', gpusPerNode: 8, powerLimitFraction: 1, powerLimitW: 400 },
  };
  edit(plan);
  return scratch.file(name, JSON.stringify({ scenario: { model: 'llama-2-7b' }, plans: [plan] }));
}

describe('launch files', () => {
  it('a multi-node power cap loops over one machine and says to run it on every machine', () => {
    const file = plansFile('two-nodes.json', (p) => {
      p.options.gpus = 16;
      p.hardware.powerLimitFraction = 0.75;
      p.hardware.powerLimitW = 300;
    });
    const r = run('launch', '--from-plan', file, '--out', 'two-nodes');
    expect(r.status, r.stderr).toBe(0);
    const script = readFileSync(join(scratch.dir, 'two-nodes', 'power-limit.sh'), 'utf8');
    expect(script).toContain("this machine's 8 GPUs at 300 W");
    expect(script).toContain('run it on every one of the 2 machines');
    expect(script).toContain('sudo nvidia-smi -i 7 -pl 300');
    expect(script).not.toContain('-i 8 ');
    const readme = readFileSync(join(scratch.dir, 'two-nodes', 'README.md'), 'utf8');
    expect(readme).toContain('`bash power-limit.sh` (root) on every machine');
  });

  it('--model path/config.json writes the folder as the model to load', () => {
    const config = JSON.parse(
      readFileSync(join(ROOT, 'test/fixtures/models/tiny-llama/config.json'), 'utf8'),
    );
    delete config._name_or_path;
    const dir = join(scratch.dir, 'my-model');
    spawnSync('mkdir', ['-p', dir]);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const r = run(
      'launch',
      '--model',
      'my-model/config.json',
      '--method',
      'lora',
      '--gpu',
      'rtx-4090',
      '--out',
      'cfg',
    );
    expect(r.status, r.stderr).toBe(0);
    const args = JSON.parse(readFileSync(join(scratch.dir, 'cfg', 'hf-args.json'), 'utf8'));
    expect(args.model_name_or_path).toBe('my-model');
  });
});

describe('launch: nothing to write is an error', () => {
  const refused = (r: ReturnType<typeof run>, out: string, why: RegExp) => {
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    expect(r.stderr).toMatch(/^vramplan: /);
    expect(r.stderr).toMatch(why);
    expect(existsSync(join(scratch.dir, out))).toBe(false);
    expect(readdirSync(scratch.dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  };

  it('a plan a behaviour rule blocks (KTO at micro-batch 1 on Unsloth)', () => {
    const r = run(
      ...['launch', '--model', 'llama-2-7b', '--method', 'qlora', '--objective', 'kto'],
      ...['--framework', 'unsloth', '--batch', '1', '--gpu', 'h100-sxm', '--out', 'kto'],
    );
    refused(r, 'kto', /this plan cannot be launched \(Unsloth: .*KTOTrainer.*\); nothing written/);
  });

  it('a hand-edited plans.json with 1,000,000 GPUs', () => {
    const file = plansFile('million.json', (p) => (p.options.gpus = 1_000_000));
    refused(
      run('launch', '--from-plan', file, '--out', 'million'),
      'million',
      /plans\[0\]\.options\.gpus: .*100000/,
    );
  });

  it('--gpus 1000000 names the allowed range', () => {
    const r = run('estimate', '--model', 'llama-2-7b', '--gpus', '1000000');
    refused(r, 'none', /--gpus: got '1000000'; expected an integer from 1 to 100000/);
  });
});
