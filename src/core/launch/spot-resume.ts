/**
 * A training plan on spot capacity runs as a SkyPilot managed job (`sky jobs launch`), which relaunches the task
 * after a preemption (https://docs.skypilot.co/en/v0.14.1/examples/managed-jobs.html, "Checkpointing and
 * recovery"). The job must save to a persistent location and resume from it: the task mounts a bucket at
 * CHECKPOINT_MOUNT (file_mounts, mode MOUNT_CACHED, https://docs.skypilot.co/en/v0.14.1/reference/storage.html)
 * and the engine saves there every `saveSteps` optimizer steps and resumes from the latest save it finds. Only on
 * clouds where SkyPilot mounts buckets (skypilot-gpus.ts bucketMounts).
 */
import { JOB_OVERHEAD } from '../time/cost.js';
import { isTraining } from './common.js';
import { SKY_CLOUDS } from './skypilot-gpus.js';
import type { LaunchInput } from './types.js';
import type { Offer } from '../../schema/offer.js';

/** Where the task mounts the checkpoint bucket (the path SkyPilot's managed-jobs checkpointing example uses). */
export const CHECKPOINT_MOUNT = '/checkpoint';
/** The engine's output folder on the mount: its saves land in the bucket and survive the machine. */
export const CHECKPOINT_DIR = `${CHECKPOINT_MOUNT}/outputs`;
/** Wall time between two saves, seconds: the interval the plan's time counts saves at (time/cost.ts JOB_OVERHEAD). */
export const SAVE_INTERVAL_SECONDS = JOB_OVERHEAD.spotSaveIntervalSeconds;
/** Steps between saves when the plan has no step time: the Trainer's own save_steps default (transformers training_args.py, 500). */
const DEFAULT_SAVE_STEPS = 500;

/** How a spot training plan saves and resumes; null for on-demand, owned or serving plans. */
export interface SpotResume {
  /** The output folder, on the mounted bucket. */
  dir: string;
  /** Optimizer steps between saves (about SAVE_INTERVAL_SECONDS of the plan's step time). */
  saveSteps: number;
}

/**
 * True when the offer is spot capacity that SkyPilot rents as spot and where it mounts a bucket (skypilot-gpus.ts
 * SKY_CLOUDS spot, bucketMounts): a run there saves periodically and resumes. RunPod and Vast mount no buckets in
 * SkyPilot 0.14.1, and a provider SkyPilot has no cloud for is not known to, so their spot runs do not.
 */
export function checkpointsOnSpot(offer: Offer | undefined): boolean {
  if (!offer || offer.kind !== 'spot') return false;
  const cloud = SKY_CLOUDS[offer.provider];
  return cloud ? cloud.spot && cloud.bucketMounts : false;
}

/** Spot capacity on a cloud that rents it as spot but mounts no bucket: a preemption loses the run. */
export function spotWithoutMount(offer: Offer | undefined): boolean {
  return (
    offer?.kind === 'spot' && SKY_CLOUDS[offer.provider]?.spot === true && !checkpointsOnSpot(offer)
  );
}

/** The plan's save-and-resume settings when it trains on spot capacity, else null. */
export function spotResume(
  x: Pick<LaunchInput, 'offer' | 'options' | 'estimate'>,
): SpotResume | null {
  if (!checkpointsOnSpot(x.offer) || !isTraining(x.options)) return null;
  const step = x.estimate.time?.stepSeconds ?? 0;
  const saveSteps =
    step > 0 ? Math.max(1, Math.round(SAVE_INTERVAL_SECONDS / step)) : DEFAULT_SAVE_STEPS;
  return { dir: CHECKPOINT_DIR, saveSteps };
}

/**
 * The bucket's name: lowercase letters, digits and hyphens, 3-63 characters (S3 and GCS bucket naming rules,
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html); the model and GPUs name it so
 * that a relaunch of the same folder reuses it (SkyPilot reuses a bucket it created, storage.html).
 */
export function checkpointBucket(x: Pick<LaunchInput, 'modelRef' | 'gpu'>, gpus: number): string {
  const slug = `${x.modelRef.split('/').pop() ?? 'model'}-${gpus}x${x.gpu.id}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `vramplan-ckpt-${slug}`.slice(0, 63).replace(/-+$/, '');
}
