/**
 * `--from sky.yaml`: a SkyPilot task (SkyPilot v0.14.1 schema, sky/utils/schemas.py get_task_schema) read back
 * to the plan's GPU, its count and the machines: `resources.accelerators` (`H100:8` or `{H100: 8}`), the
 * cloud of `resources.infra` (or the older `resources.cloud`), `num_nodes`. The model and the training
 * settings live in the engine's files beside it (`--from <folder>` reads both).
 */
import { FromError, isRecord, type FromMapping } from './common.js';
import { SKY_ACCELERATORS, gpuIdOfSky } from '../launch/skypilot-gpus.js';
import { SKY_GPU_ENV } from '../launch/skypilot.js';

/** Keys of a task that say nothing about per-GPU memory (sky/utils/schemas.py get_task_schema properties). */
const TASK_KEYS = [
  'name',
  'workdir',
  'event_callback',
  'file_mounts',
  'service',
  'pool',
  'setup',
  'run',
  'envs',
  'secrets',
  'managed_secrets',
  'inputs',
  'outputs',
  'volumes',
  'config',
  'estimated_runtime',
];

/** A document SkyPilot would read as a task: a `resources` mapping beside task keys. */
export const isSkyTask = (doc: Record<string, unknown>): boolean =>
  isRecord(doc.resources) &&
  ['run', 'setup', 'num_nodes', 'workdir'].some((k) => k in doc) &&
  ('accelerators' in doc.resources || 'infra' in doc.resources || 'cloud' in doc.resources);

/** `H100:8` / `{H100: 8}` → name and count (sky/resources.py _set_accelerators parses both). */
function acceleratorOf(v: unknown): { name: string; count: number } {
  const allowed = "one accelerator and its count, 'H100:8' or {H100: 8}";
  if (typeof v === 'string') {
    const m = /^\s*([^:\s]+)\s*(?::\s*(\d+)\s*)?$/.exec(v);
    if (!m) throw new FromError('resources.accelerators', v, allowed);
    return { name: m[1]!, count: m[2] === undefined ? 1 : Number(m[2]) };
  }
  if (isRecord(v) && Object.keys(v).length === 1) {
    const [name, count] = Object.entries(v)[0]!;
    if (typeof count === 'number' && Number.isInteger(count) && count >= 1) return { name, count };
  }
  throw new FromError('resources.accelerators', v, allowed);
}

export function mapSkyPilot(doc: Record<string, unknown>): FromMapping {
  const res = doc.resources as Record<string, unknown>;
  const warnings: string[] = [];
  if (res.accelerators === undefined)
    throw new FromError('resources.accelerators', undefined, "the GPUs of the task, e.g. 'H100:8'");
  const { name, count } = acceleratorOf(res.accelerators);
  if (count < 1 || !Number.isSafeInteger(count))
    throw new FromError('resources.accelerators', res.accelerators, 'a GPU count of 1 or more');
  const where =
    typeof res.infra === 'string' ? res.infra : typeof res.cloud === 'string' ? res.cloud : null;
  const infra = where === null ? null : where.split('/')[0]!.toLowerCase();
  const nodes = doc.num_nodes ?? 1;
  if (typeof nodes !== 'number' || !Number.isSafeInteger(nodes) || nodes < 1)
    throw new FromError('num_nodes', nodes, 'an integer of 1 or more');
  // vramplan writes the catalog GPU beside SkyPilot's name, which some clouds share between cards (Vast's A100).
  const envs = isRecord(doc.envs) ? doc.envs : {};
  const named = envs[SKY_GPU_ENV];
  const fromTable = gpuIdOfSky(name, infra);
  const gpu = typeof named === 'string' && named in SKY_ACCELERATORS ? named : fromTable;
  if (gpu === null)
    throw new FromError(
      'resources.accelerators',
      name,
      `a SkyPilot accelerator vramplan knows (${[...new Set(Object.values(SKY_ACCELERATORS).map((r) => r.name))].join(', ')})`,
    );
  if (fromTable !== null && fromTable !== gpu && typeof named === 'string')
    warnings.push(
      `envs.${SKY_GPU_ENV}: ${named} read as the GPU (SkyPilot's ${name} is ${fromTable} in vramplan's table)`,
    );
  const known = new Set(['resources', 'num_nodes', ...TASK_KEYS]);
  return {
    format: 'skypilot',
    model: null,
    flags: { gpu, gpus: count * nodes, 'gpus-per-node': count },
    warnings,
    ignored: Object.keys(doc).filter((k) => k !== 'resources' && k !== 'num_nodes' && known.has(k)),
    unknown: Object.keys(doc).filter((k) => !known.has(k)),
    deepspeedRef: null,
    deepspeedInline: null,
    memoryKeys: ['resources', 'num_nodes'],
  };
}
