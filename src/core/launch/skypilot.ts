/**
 * sky.yaml: a SkyPilot task that rents the plan's GPUs and runs the folder (SkyPilot v0.14.1). Every key is
 * from SkyPilot's task schema, sky/utils/schemas.py get_task_schema / _get_single_resources_schema at
 * https://github.com/skypilot-org/skypilot/blob/v0.14.1/sky/utils/schemas.py, as documented in
 * https://docs.skypilot.co/en/v0.14.1/reference/yaml-spec.html; scripts/check-launch-libs/sky.py loads the
 * written tasks with sky.Task.from_yaml.
 */
import { Document } from 'yaml';
import type { Offer } from '../../schema/offer.js';
import { checkpointBytes } from '../memory/host-ram.js';
import { valueBytes } from '../model/dtypes.js';
import { modelRepo } from '../model/arch.js';
import { nativeWeights } from '../model/native-weights.js';
import { checkpointFor } from './checkpoints.js';
import { isTraining, MASTER_PORT, nodesOf } from './common.js';
import { checkpointBucket, CHECKPOINT_MOUNT, spotResume, spotWithoutMount } from './spot-resume.js';
import { SKY_ACCELERATORS, SKY_CLOUDS, skyAcceleratorOf, type SkyCloud } from './skypilot-gpus.js';
import type { EngineOutput, LaunchInput } from './types.js';

export const SKY_FILE = 'sky.yaml';
/** The name of the SkyPilot output in a bundle (written beside the engine's files for rented plans). */
export const SKY_ENGINE = 'SkyPilot';
/** The SkyPilot release whose schema and variables the task follows. */
export const SKYPILOT_VERSION = '0.14.1';
/** envs key naming the catalog GPU, so `--from` reads the plan's GPU back where SkyPilot's name is shared. */
export const SKY_GPU_ENV = 'VRAMPLAN_GPU';

/**
 * Variables SkyPilot sets on every node before `run` (sky/skylet/constants.py SKYPILOT_NODE_RANK,
 * SKYPILOT_NODE_IPS, SKYPILOT_NUM_GPUS_PER_NODE at v0.14.1; set in sky/backends/task_codegen.py).
 */
export const SKY_VARS = {
  nodeRank: 'SKYPILOT_NODE_RANK',
  nodeIps: 'SKYPILOT_NODE_IPS',
  gpusPerNode: 'SKYPILOT_NUM_GPUS_PER_NODE',
} as const;

/** SkyPilot's disk when a task names none, GB (sky/resources.py DEFAULT_DISK_SIZE_GB = 256 at v0.14.1). */
export const SKY_DEFAULT_DISK_GB = 256;
/** Room for the OS image, the pip environment (torch and CUDA wheels) and caches, GB (assumption). */
const ENVIRONMENT_GB = 50;
/**
 * Bytes per trainable parameter a training run writes: one checkpoint of fp32 weights with AdamW's two fp32
 * moments (4 + 8, ZeRO paper §3.1, the largest optimizer state vramplan plans) and the final 16-bit model (2).
 */
const SAVED_BYTES_PER_TRAINABLE = 14;
const GB = 1e9;

/** What a rented plan needs besides the LaunchInput: its offer and the serving ports, if any. */
export interface SkyInput {
  offer: Offer;
  /** Ports the servers listen on (serving plans); empty for training. */
  ports: number[];
  /** The command `run` ends with: `bash launch.sh` (training), `bash serve.sh` (serving) or the engine's own. */
  command: string;
  /** The requirements file `setup` installs (index.ts rentedRun), or null for none. */
  requirements: string | null;
  /** The engine saves to the spot plan's checkpoint mount and resumes from it (spot-resume.ts). */
  resumes?: boolean;
}

/**
 * Disk for the task, GB: the checkpoint download (a published checkpoint in the served format,
 * checkpoints.ts, at its bytes per weight; else the base checkpoint as stored, memory/host-ram.ts
 * checkpointBytes), what a training run saves, and the environment; rounded up to 10 GB, never below
 * SkyPilot's own default.
 */
export function skyDiskGb(x: LaunchInput): number {
  const o = x.options;
  const p = x.estimate.params;
  const total = p?.checkpoint?.total ?? p?.total ?? 0;
  const served = isTraining(o)
    ? null
    : checkpointFor(modelRepo(x.arch), x.modelRef, o.weights, nativeWeights(x.arch));
  const download = served?.published
    ? total * valueBytes(o.weights)
    : checkpointBytes(x.arch, total);
  const saved = isTraining(o) ? (p?.trainable ?? total) * SAVED_BYTES_PER_TRAINABLE : 0;
  const gb = Math.ceil((download + saved) / GB + ENVIRONMENT_GB);
  return Math.max(SKY_DEFAULT_DISK_GB, Math.ceil(gb / 10) * 10);
}

/** Why SkyPilot cannot start this plan as planned on the offer's cloud, or null. */
export function skyBlocker(x: LaunchInput, offer: Offer): string | null {
  const cloud = SKY_CLOUDS[offer.provider];
  if (cloud === undefined)
    return `vramplan knows no SkyPilot cloud for provider '${offer.provider}'`;
  if (skyAcceleratorOf(x.gpu.id, cloud) === null)
    return `vramplan knows no SkyPilot accelerator name for ${x.gpu.id} (src/core/launch/skypilot-gpus.ts)`;
  const { nodes } = nodesOf(x);
  if (cloud && nodes > 1 && !cloud.multiNode)
    return `SkyPilot ${SKYPILOT_VERSION} starts no multi-node clusters on ${cloud.infra} (sky/clouds/${cloud.infra}.py, MULTI_NODE) and this plan spans ${nodes} machines`;
  return null;
}

/** The task's `run`: a check of the GPUs, rank and rendezvous from SkyPilot's variables, then the command. */
function runScript(x: LaunchInput, command: string): string {
  const { nodes, perNode } = nodesOf(x);
  const v = SKY_VARS;
  const lines = [
    `# ${perNode} GPU${perNode > 1 ? 's' : ''} a machine as planned; SkyPilot says how many it gave.`,
    `if [ "$${v.gpusPerNode}" != ${perNode} ]; then echo "vramplan: planned ${perNode} GPU${perNode > 1 ? 's' : ''} a machine, SkyPilot gave $${v.gpusPerNode}" >&2; exit 1; fi`,
  ];
  if (nodes > 1)
    lines.push(
      `# Machine rank and the address of machine 0, as the command reads them (NODE_RANK, MASTER_ADDR).`,
      `export NODE_RANK="$${v.nodeRank}"`,
      `export MASTER_ADDR="$(echo "$${v.nodeIps}" | head -n 1)"`,
      `export MASTER_PORT=${MASTER_PORT}`,
    );
  lines.push(command);
  return `${lines.join('\n')}\n`;
}

/** The spot/on-demand choice: the offer's kind where the cloud rents spot capacity, else on-demand. */
const useSpot = (offer: Offer, cloud: SkyCloud | null): boolean =>
  offer.kind === 'spot' && (cloud?.spot ?? true);

/**
 * `sky jobs launch` for a training plan on spot capacity (a managed job, recovered after a preemption:
 * https://docs.skypilot.co/en/v0.14.1/examples/managed-jobs.html), else `sky launch`.
 */
export const skyCommand = (
  x: Pick<LaunchInput, 'offer' | 'options' | 'estimate'>,
  resumes: boolean,
): string => (resumes && spotResume(x) ? 'sky jobs launch' : 'sky launch');

/**
 * A spot training plan's checkpoint bucket: file_mounts with `name` (SkyPilot creates the bucket, or reuses the one
 * it created) in MOUNT_CACHED mode, writes cached on the local disk and uploaded in the background, as SkyPilot's
 * checkpointing example does (https://docs.skypilot.co/en/v0.14.1/examples/managed-jobs.html "Checkpointing and
 * recovery"; modes: https://docs.skypilot.co/en/v0.14.1/reference/storage.html). Nothing for other plans.
 */
function checkpointMount(x: LaunchInput, resumes: boolean): Record<string, unknown> {
  if (!resumes || !spotResume(x)) return {};
  const bucket = { name: checkpointBucket(x, x.options.gpus), mode: 'MOUNT_CACHED' };
  return { file_mounts: { [CHECKPOINT_MOUNT]: bucket } };
}

/** What a training plan on spot capacity does about a preemption (spot-resume.ts), for the README's notes. */
function spotNotes(x: LaunchInput, s: SkyInput, cloud: SkyCloud | null): string[] {
  const resume = spotResume(x);
  if (resume && s.resumes === true)
    return [
      `spot capacity: a managed job (sky jobs launch) relaunches the task after a preemption; it saves to the bucket ${checkpointBucket(x, x.options.gpus)} mounted at ${CHECKPOINT_MOUNT} every ${resume.saveSteps} steps and resumes from the latest save (rename the bucket if the name is taken)`,
    ];
  if (resume)
    return [
      "spot capacity: this engine's files save only at the end of an epoch and do not resume, so a preemption loses the run; sky launch does not recover a preempted cluster",
    ];
  if (isTraining(x.options) && spotWithoutMount(s.offer))
    return [
      `spot capacity: SkyPilot ${SKYPILOT_VERSION} mounts no bucket on ${cloud?.infra ?? s.offer.provider} (STORAGE_MOUNTING unsupported), so the run saves only at the end and a preemption loses it; sky launch does not recover a preempted cluster`,
    ];
  return [];
}

/** sky.yaml for a plan on a rented offer, or why not. */
export function emitSkyPilot(x: LaunchInput, s: SkyInput): EngineOutput {
  const engine = SKY_ENGINE;
  const why = skyBlocker(x, s.offer);
  if (why) return { engine, ok: false, reason: why };
  const cloud = SKY_CLOUDS[s.offer.provider] ?? null;
  const { nodes, perNode } = nodesOf(x);
  const accelerator = skyAcceleratorOf(x.gpu.id, cloud)!;
  const resources: Record<string, unknown> = {
    ...(cloud ? { infra: cloud.infra } : {}),
    accelerators: `${accelerator}:${perNode}`,
    use_spot: useSpot(s.offer, cloud),
    disk_size: skyDiskGb(x),
  };
  if (s.ports.length > 0) resources.ports = s.ports.length === 1 ? s.ports[0] : s.ports;
  const task: Record<string, unknown> = {
    name: 'vramplan',
    workdir: '.',
    resources,
    ...(nodes > 1 ? { num_nodes: nodes } : {}),
    ...checkpointMount(x, s.resumes === true),
    envs: { [SKY_GPU_ENV]: x.gpu.id },
    ...(s.requirements ? { setup: `pip install -r ${s.requirements}\n` } : {}),
    run: runScript(x, s.command),
  };
  const doc = new Document(task);
  doc.commentBefore = [
    ` SkyPilot task (SkyPilot ${SKYPILOT_VERSION}) for the plan in README.md, generated by vramplan.`,
    ` Offer ${s.offer.id}: ${s.offer.kind} at $${s.offer.usdPerGpuHour}/GPU-hour as of ${s.offer.asOf} (vramplan's price; SkyPilot may find another).`,
    ` Start it from this folder: ${skyCommand(x, s.resumes === true)} ${SKY_FILE}`,
  ].join('\n');
  const notes: string[] = [];
  notes.push(...spotNotes(x, s, cloud));
  const shared = Object.keys(SKY_ACCELERATORS).filter(
    (id) => id !== x.gpu.id && skyAcceleratorOf(id, cloud) === accelerator,
  );
  if (shared.length > 0)
    notes.push(
      `SkyPilot${cloud ? ` on ${cloud.infra}` : ''} also calls ${shared.join(', ')} ${accelerator}: check that the machine it offers has the ${x.gpu.name} before renting`,
    );
  if (cloud === null)
    notes.push(
      `SkyPilot has no ${s.offer.provider} cloud: the task names no infra, so SkyPilot rents the ${accelerator} from a cloud you enabled`,
    );
  if (s.offer.kind === 'spot' && cloud && !cloud.spot)
    notes.push(`${cloud.infra} rents no spot instances in SkyPilot: the task asks for on-demand`);
  if (s.offer.kind === 'serverless')
    notes.push(
      `the offer is serverless; SkyPilot rents an on-demand ${cloud ? `${cloud.infra} ` : ''}machine instead, billed while it is up`,
    );
  if (s.offer.kind === 'reserved')
    notes.push(
      'the offer is reserved capacity; SkyPilot asks for on-demand unless your SkyPilot config names the reservation',
    );
  return {
    engine,
    ok: true,
    files: [{ path: SKY_FILE, content: doc.toString({ lineWidth: 0 }) }],
    notes,
  };
}
