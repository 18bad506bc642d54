// A training plan on spot capacity runs as a SkyPilot managed job that survives a preemption: sky.yaml mounts a
// checkpoint bucket (file_mounts, MOUNT_CACHED), the README starts it with `sky jobs launch`, and the Trainer saves
// to the mount every few steps and resumes from the latest save, with keys the pinned libraries accept
// (test/fixtures/launch-libs/accepted-keys.json, skypilot.json). On-demand plans write what they wrote before.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SKY_CASES, skyCaseInput } from '../../scripts/check-launch-libs/sky-folders.js';
import { flagsLaunchInput } from '../../scripts/check-launch-libs/folders.js';
import { loadOffers } from '../../src/io/load-catalog.js';
import type { LaunchInput } from '../../src/core/launch/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { SKY_FILE } from '../../src/core/launch/skypilot.js';
import {
  CHECKPOINT_DIR,
  CHECKPOINT_MOUNT,
  SAVE_INTERVAL_SECONDS,
  checkpointsOnSpot,
  spotResume,
} from '../../src/core/launch/spot-resume.js';
import { spotSaveHours } from '../../src/core/time/cost.js';
import { skyRunLines } from '../../src/ui/sky-readme.js';
import { sftSchema } from '../fixtures/engine-schemas/index.js';

const SKY = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/skypilot.json', import.meta.url), 'utf8'),
) as { taskKeys: string[] };
const ACCEPTED = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/accepted-keys.json', import.meta.url), 'utf8'),
) as { keys: Record<string, string[]> };

const row = (name: string) => SKY_CASES.find((r) => r.name === name)!;
// The catalog rents spot capacity only on RunPod and Vast, where SkyPilot mounts no bucket: the AWS H100 offer
// asked for as spot stands for a cloud that does (sky/clouds/aws.py supports STORAGE_MOUNTING).
const awsSpot = (): LaunchInput => {
  const offer = loadOffers().find((o) => o.id === 'aws-h100-sxm-reserved-8x')!;
  const flags = { method: 'qlora', optimizer: 'paged-adamw-8bit', checkpointing: 'full' };
  return {
    ...flagsLaunchInput('llama-3.1-8b', offer.gpuId, flags, offer.gpusPerNode),
    offer: { ...offer, id: 'aws-h100-sxm-spot', kind: 'spot' },
  };
};
const launched = (name: string) =>
  launchedOf(name === 'aws-spot' ? awsSpot() : skyCaseInput(row(name)));
const launchedOf = (x: LaunchInput) => {
  const bundle = buildLaunch(x);
  const file = (p: string) => bundle.files.find((f) => f.path === p)?.content ?? '';
  return { x, bundle, file, sky: parse(file(SKY_FILE)) as Record<string, unknown> };
};

describe('spot training plans run as SkyPilot managed jobs', () => {
  const spot = launched('aws-spot');

  it('sky.yaml mounts a persistent bucket in MOUNT_CACHED mode, with keys SkyPilot accepts', () => {
    expect(SKY.taskKeys).toContain('file_mounts');
    const mounts = spot.sky.file_mounts as Record<string, { name: string; mode: string }>;
    expect(Object.keys(mounts)).toEqual([CHECKPOINT_MOUNT]);
    expect(mounts[CHECKPOINT_MOUNT]!.mode).toBe('MOUNT_CACHED');
    expect(mounts[CHECKPOINT_MOUNT]!.name).toMatch(/^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/);
    expect((spot.sky.resources as Record<string, unknown>).use_spot).toBe(true);
    expect(spot.file(SKY_FILE)).toContain('sky jobs launch sky.yaml');
  });

  it('the README starts it with sky jobs launch', () => {
    const lines = skyRunLines(spot.x, spot.bundle).join('\n');
    expect(lines).toContain('`sky jobs launch sky.yaml`');
    expect(lines).not.toContain('`sky launch sky.yaml`');
  });

  it('the Trainer saves on the mount every ~30 minutes of steps and resumes from the latest save', () => {
    const args = JSON.parse(spot.file('hf-args.json')) as { sft_config: Record<string, unknown> };
    const sft = args.sft_config;
    expect(sft.output_dir).toBe(CHECKPOINT_DIR);
    expect(CHECKPOINT_DIR.startsWith(`${CHECKPOINT_MOUNT}/`)).toBe(true);
    expect(sft.save_strategy).toBe('steps');
    const step = spot.x.estimate.time!.stepSeconds;
    expect(step).toBeGreaterThan(0);
    expect(sft.save_steps).toBe(Math.max(1, Math.round(SAVE_INTERVAL_SECONDS / step)));
    for (const k of ['output_dir', 'save_strategy', 'save_steps'])
      expect(ACCEPTED.keys.SFTConfig, k).toContain(k);
    expect(sftSchema.safeParse(sft).success).toBe(true);
    const py = spot.file('train.py');
    expect(py).toContain('get_last_checkpoint(training_args.output_dir)');
    expect(py).toContain('trainer.train(resume_from_checkpoint=last)');
  });

  it('on-demand plans are unchanged: sky launch, no mount, the Trainer saves once at the end', () => {
    const od = launched('sky-lambda-a6000-lora');
    expect(spotResume(od.x)).toBeNull();
    expect(od.sky.file_mounts).toBeUndefined();
    expect(od.file(SKY_FILE)).toContain('sky launch sky.yaml');
    const sft = (JSON.parse(od.file('hf-args.json')) as { sft_config: Record<string, unknown> })
      .sft_config;
    expect(sft.output_dir).toBe('outputs');
    expect(sft.save_strategy).toBe('epoch');
    expect(sft.save_steps).toBeUndefined();
    expect(od.file('train.py')).toContain('\ntrainer.train()\n');
    expect(skyRunLines(od.x, od.bundle).join('\n')).toContain('`sky launch sky.yaml`');
  });

  it('spot on a cloud that mounts no bucket (RunPod): sky launch, no mount, a note that a preemption loses the run', () => {
    const rp = launched('sky-runpod-spot-qlora');
    expect(spotResume(rp.x)).toBeNull();
    expect(rp.sky.file_mounts).toBeUndefined();
    expect((rp.sky.resources as Record<string, unknown>).use_spot).toBe(true);
    expect(rp.file(SKY_FILE)).toContain('sky launch sky.yaml');
    const sky = rp.bundle.outputs.find((o) => o.engine === 'SkyPilot');
    expect(sky?.ok && sky.notes.some((n) => n.includes('mounts no bucket on runpod'))).toBe(true);
    const sft = (JSON.parse(rp.file('hf-args.json')) as { sft_config: Record<string, unknown> })
      .sft_config;
    expect(sft.save_strategy).toBe('epoch');
  });

  it('serving on spot is no managed training job', () => {
    const x = awsSpot();
    expect(spotResume({ ...x, options: { ...x.options, method: 'inference' } })).toBeNull();
  });
});

describe('a spot plan counts its periodic saves', () => {
  it('one save of 14 bytes a trainable parameter per 30 minutes of steps, at 1 GB/s', () => {
    expect(spotSaveHours(0.49, 1e9)).toBe(0);
    expect(spotSaveHours(1, 1e9) * 3600).toBeCloseTo(28, 9);
    expect(spotSaveHours(2, 2e9)).toBeGreaterThan(spotSaveHours(1, 1e9));
  });

  it('only where the launch saves: spot on a cloud that mounts buckets', () => {
    const offers = loadOffers();
    const rp = offers.find((o) => o.id === 'runpod-rtx-4090-spot')!;
    const vast = offers.find((o) => o.id === 'vast-rtx-3090-spot')!;
    expect(checkpointsOnSpot(rp)).toBe(false);
    expect(checkpointsOnSpot(vast)).toBe(false);
    expect(checkpointsOnSpot(awsSpot().offer)).toBe(true);
    expect(checkpointsOnSpot(offers.find((o) => o.id === 'aws-h100-sxm-reserved-8x'))).toBe(false);
  });
});
