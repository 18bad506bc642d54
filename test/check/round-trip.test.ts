/**
 * The loop closed end to end through the built CLI: launch a plan, drop a recorded run into its folder (the files
 * vramplan_probe.py writes: test/fixtures/check/*-run, figures chosen for the test), check it, write it as
 * calibration rows, and score them with validate --cases. One training folder, one serving folder.
 */
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, scratchDir } from '../helpers/run-cli.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/check/', import.meta.url));
const tmp = scratchDir('vramplan-check-');
afterAll(() => tmp.remove());

/** Launch a folder, then copy a recorded run into it. */
function launched(name: string, flags: string[], run: string): string {
  const out = join(tmp.dir, name);
  const r = runCli(['launch', '--model', 'llama-3.1-8b', ...flags, '--out', out]);
  expect(r.status, r.stderr).toBe(0);
  for (const f of readdirSync(join(FIXTURES, run))) cpSync(join(FIXTURES, run, f), join(out, f));
  return out;
}

interface CheckJson {
  inside: boolean;
  rows: {
    component: string;
    planned: number;
    measured: number;
    ratio: number;
    inside: boolean;
    reasons: string[];
  }[];
  notMeasured: string[];
}

describe('training folder (hf-trainer, LoRA, one H100)', () => {
  const dir = launched('hf', ['--method', 'lora', '--gpu', 'h100-sxm-80gb'], 'hf-run');

  it('the launch folder carries the probe and the plan it was written from', () => {
    expect(existsSync(join(dir, 'vramplan_probe.py'))).toBe(true);
    const plan = JSON.parse(readFileSync(join(dir, 'vramplan-plan.json'), 'utf8')) as {
      engine: string;
      flags: Record<string, unknown>;
    };
    expect(plan.engine).toBe('hf-trainer');
    expect(plan.flags).toEqual({ method: 'lora', gpu: 'h100-sxm' });
    expect(readFileSync(join(dir, 'train.py'), 'utf8')).toContain(
      'attach_probe(trainer)\ntrainer.train()',
    );
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain(
      'python3 vramplan_probe.py run -- bash launch.sh',
    );
  });

  it('check: every component measured is inside the band; exit 0', () => {
    const r = runCli(['check', dir, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as CheckJson;
    expect(j.inside).toBe(true);
    expect(j.rows.map((x) => x.component)).toEqual([
      'allocated',
      'reserved',
      'device',
      'step time',
      'tokens/s per GPU',
    ]);
    const by = Object.fromEntries(j.rows.map((x) => [x.component, x]));
    expect(by.allocated!.measured).toBe(29_000_000_000);
    // Device: the peak minus what was in use before the run (33,554,432,000 - 4,194,304).
    expect(by.device!.measured).toBe(33_550_237_696);
    // The callback's median step (0.19 s) before the Trainer's mean; tokens/s = 2048 planned tokens / 0.19 s.
    expect(by['step time']!.measured).toBe(0.19);
    expect(by['tokens/s per GPU']!.measured).toBeCloseTo(2048 / 0.19, 6);
    const text = runCli(['check', dir]);
    expect(text.stdout).toContain("inside the plan's uncertainty band (exit 0)");
  });

  it('--case rows, scored by validate --cases: the estimate from the rows is the plan the folder promised', () => {
    const file = join(tmp.dir, 'hf-case.json');
    const r = runCli(['check', dir, '--case', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`vramplan validate --cases ${file}`);
    const rows = JSON.parse(readFileSync(file, 'utf8')) as {
      metric: string;
      measured_bytes: number;
    }[];
    expect(rows.map((x) => x.metric)).toEqual(['allocated', 'reserved', 'device']);
    expect(existsSync(join(tmp.dir, 'configs', 'meta-llama__Llama-3.1-8B.json'))).toBe(true);
    const plan = JSON.parse(readFileSync(join(dir, 'vramplan-plan.json'), 'utf8')) as {
      estimate: Record<string, number>;
    };
    const v = runCli(['validate', '--cases', file, '--json']);
    expect(v.status, v.stderr).toBe(0);
    const scored = JSON.parse(v.stdout) as {
      rows: { metric: string; measuredBytes: number; estimatedBytes: number }[];
    };
    expect(scored.rows.map((x) => [x.metric, x.measuredBytes, x.estimatedBytes])).toEqual([
      ['allocated', 29_000_000_000, plan.estimate.allocatedBytes],
      ['reserved', 31_900_000_000, plan.estimate.reservedBytes],
      ['device', 33_550_237_696, plan.estimate.deviceBytes],
    ]);
    // Written once: a second --case to the same file is refused without --force.
    const again = runCli(['check', dir, '--case', file]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^vramplan: .*already exists/);
  });

  it('outside the band: exit 3, with the reasons the record supports', () => {
    const other = launched('hf-oom', ['--method', 'lora', '--gpu', 'h100-sxm-80gb'], 'hf-run');
    const rank = JSON.parse(readFileSync(join(other, 'measured.rank0.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(
      join(other, 'measured.rank0.json'),
      JSON.stringify({ ...rank, allocatedBytes: 40e9, versions: { torch: '2.9.0' } }),
    );
    writeFileSync(
      join(other, 'run.log'),
      'UserWarning: flash_attn is not installed, falling back to eager\n',
    );
    const r = runCli(['check', other, '--json']);
    expect(r.status).toBe(3);
    const j = JSON.parse(r.stdout) as CheckJson;
    const alloc = j.rows.find((x) => x.component === 'allocated')!;
    expect(alloc.inside).toBe(false);
    expect(alloc.reasons.join('\n')).toContain('a kernel fell back to a slower path');
    // measured.json's versions win over the rank's for the same package: the pins match there.
    expect(alloc.reasons.join('\n')).not.toContain('library versions differ');
  });
});

describe('serving folder (vLLM, 8 sequences, one H100)', () => {
  const dir = launched(
    'vllm',
    ['--method', 'inference', '--framework', 'vllm', '--batch', '8', '--gpu', 'h100-sxm-80gb'],
    'vllm-run',
  );

  it('check: TTFT outside, TPOT and device inside; exit 3', () => {
    const r = runCli(['check', dir, '--json']);
    expect(r.status, r.stderr).toBe(3);
    const j = JSON.parse(r.stdout) as CheckJson;
    const by = Object.fromEntries(j.rows.map((x) => [x.component, x]));
    // Deltas between the two scrapes: TTFT (34 - 4) / (200 - 100); TPOT (1033 - 72) / (142700 - 9900).
    expect(by['time to first token']!.measured).toBeCloseTo(0.3, 12);
    expect(by['time to first token']!.inside).toBe(false);
    expect(by['time per output token']!.measured).toBeCloseTo(961 / 132800, 12);
    expect(by['time per output token']!.inside).toBe(true);
    expect(by.device!.measured).toBe(79e9);
    expect(by.device!.inside).toBe(true);
    expect(j.notMeasured).toEqual(['allocated', 'reserved']);
  });

  it('--case rows scored by validate --cases', () => {
    const file = join(tmp.dir, 'vllm-case.json');
    expect(runCli(['check', dir, '--case', file]).status).toBe(3);
    const v = runCli(['validate', '--cases', file, '--json']);
    expect(v.status, v.stderr).toBe(0);
    const plan = JSON.parse(readFileSync(join(dir, 'vramplan-plan.json'), 'utf8')) as {
      estimate: Record<string, number>;
    };
    const scored = JSON.parse(v.stdout) as { rows: { metric: string; estimatedBytes: number }[] };
    expect(scored.rows).toEqual([
      expect.objectContaining({ metric: 'device', estimatedBytes: plan.estimate.deviceBytes }),
    ]);
  });
});

describe('bad input: one line, exit 1, nothing written', () => {
  it('a folder without a plan', () => {
    const r = runCli(['check', tmp.dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^vramplan: check: .* has no vramplan-plan\.json; expected a launch folder/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a launch folder the run has not written to yet', () => {
    const out = join(tmp.dir, 'fresh');
    expect(
      runCli([
        'launch',
        '--model',
        'llama-3.1-8b',
        '--method',
        'lora',
        '--gpu',
        'h100-sxm-80gb',
        '--out',
        out,
      ]).status,
    ).toBe(0);
    const r = runCli(['check', out, '--case']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^vramplan: check: .* has no measured\.json yet/);
    expect(existsSync(join(out, 'vramplan-case.json'))).toBe(false);
  });

  it('a measured.json with a wrong field names the file and the field', () => {
    const out = launched('broken', ['--method', 'lora', '--gpu', 'h100-sxm-80gb'], 'hf-run');
    const m = JSON.parse(readFileSync(join(out, 'measured.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(join(out, 'measured.json'), JSON.stringify({ ...m, gpus: 'none' }));
    const r = runCli(['check', out]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^vramplan: .*measured\.json: gpus: .*expected the measured\.json/);
    rmSync(join(out, 'measured.json'));
  });

  it('--from without --log', () => {
    const r = runCli([
      'check',
      '--from',
      'examples/from/trl/sft-qlora.json',
      '--gpu',
      'h100-sxm-80gb',
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^vramplan: --log: missing/);
  });
});

describe('check --from <config> --log <file>: a folder the user wrote', () => {
  it("torchtune recipe + a torchtune metric log (another run's: reported outside, exit 3)", () => {
    const r = runCli([
      'check',
      '--from',
      'examples/from/torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml',
      '--gpu',
      'h100-sxm-80gb',
      '--log',
      join(FIXTURES, 'torchtune-pr2406.log'),
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(3);
    const j = JSON.parse(r.stdout) as CheckJson;
    expect(j.rows.map((x) => x.component)).toEqual(['allocated', 'reserved', 'tokens/s per GPU']);
    expect(j.rows[0]!.measured).toBeCloseTo(57.90928649902344 * 1024 ** 3, 0);
  });

  it('an SGLang command + its /metrics dump', () => {
    const r = runCli([
      'check',
      '--from',
      'examples/from/serving/sglang-serve.sh',
      '--gpu',
      'h100-sxm-80gb',
      '--log',
      join(FIXTURES, 'sglang-docs.prom'),
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(3);
    const j = JSON.parse(r.stdout) as CheckJson;
    const ttft = j.rows.find((x) => x.component === 'time to first token')!;
    expect(ttft.reasons[0]).toContain('observed concurrency (162.0 requests at once)');
  });
});
