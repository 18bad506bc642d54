// A rented plan written as an axolotl config (no train.py, so no launch.sh) gets the same SkyPilot task as the
// others: setup installs requirements-axolotl.txt, run calls `axolotl train axolotl.yaml`, and a spot offer on a
// cloud without bucket mounts carries the "a preemption loses the run" note.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { AXOLOTL_REQUIREMENTS, axolotlCommand } from '../../src/core/engines/hf/axolotl.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { SKY_FILE } from '../../src/core/launch/skypilot.js';
import { plan } from '../../src/core/plan/index.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { skyRunLines } from '../../src/ui/sky-readme.js';
import { flagsLaunchInput } from '../../scripts/check-launch-libs/folders.js';

const RENT = 'scenarios/70b-qlora-rent-cheapest.yaml';

describe("the shipped rent-cheapest 70B QLoRA scenario's best spot plan launches on its rented offer", () => {
  const input = planInputOf(RENT, loadScenario(RENT));
  // The best spot plan: a faster plan within 1% of its cost ranks above it (near ties on cost go to the second key, time).
  const x = plan(input)
    .plans.slice(0, 10)
    .map((p) => launchInputOfPlan(p, input.arch, input.arch.hfId ?? input.arch.id))
    .find((l) => l.offer?.kind === 'spot')!;
  const bundle = buildLaunch(x);
  const file = (path: string) => bundle.files.find((f) => f.path === path)?.content;

  it('is an axolotl config on spot GPUs from a cloud that mounts no bucket, with no launch.sh', () => {
    expect(x.offer?.kind).toBe('spot');
    expect(file('axolotl.yaml')).toContain('qlora_sharded_model_loading: true');
    expect(file('launch.sh')).toBeUndefined();
  });

  it('writes sky.yaml: setup installs the axolotl pins, run trains the written config', () => {
    const sky = parse(file(SKY_FILE) ?? '') as Record<string, unknown>;
    expect(sky.setup).toBe(`pip install -r ${AXOLOTL_REQUIREMENTS}\n`);
    expect(file(AXOLOTL_REQUIREMENTS)).toMatch(/^axolotl==/m);
    const run = String(sky.run).trim().split('\n');
    expect(run.at(-1)).toBe('axolotl train axolotl.yaml');
    expect(sky.resources).toMatchObject({ accelerators: 'RTX3090:8', use_spot: true });
  });

  it('notes that a preemption loses the run, and the README starts it with sky launch', () => {
    const out = bundle.outputs.find((o) => o.engine === 'SkyPilot');
    expect(out?.ok && out.notes.join('\n')).toMatch(/a preemption loses it/);
    const lines = skyRunLines(x, bundle).join('\n');
    expect(lines).toContain(`\`sky launch ${SKY_FILE}\``);
    expect(lines).toContain(`installs ${AXOLOTL_REQUIREMENTS} and runs`);
  });
});

describe('axolotl run command', () => {
  it('is `axolotl train axolotl.yaml` on one machine', () => {
    const x = flagsLaunchInput('llama-3.1-8b', 'h100-sxm', { method: 'qlora', gpus: '8' }, 8);
    expect(axolotlCommand(x)).toBe('axolotl train axolotl.yaml');
  });

  it("passes accelerate the machines' rendezvous after `--` across machines", () => {
    const x = flagsLaunchInput('llama-3.1-8b', 'h100-sxm', { method: 'qlora', gpus: '16' }, 8);
    expect(axolotlCommand(x)).toBe(
      'axolotl train axolotl.yaml -- --multi_gpu --num_machines 2 --num_processes 16 --machine_rank "$NODE_RANK" --main_process_ip "$MASTER_ADDR" --main_process_port "$MASTER_PORT"',
    );
  });
});
