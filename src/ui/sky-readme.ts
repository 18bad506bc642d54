/** The launch README's lines for a rented plan's SkyPilot task (core/launch/skypilot.ts). */
import { rentedRun, type LaunchBundle, type LaunchInput } from '../core/launch/index.js';
import { SKY_FILE, SKYPILOT_VERSION, skyCommand } from '../core/launch/skypilot.js';

/** How to start sky.yaml and what its price means; nothing when the folder has no task. */
export function skyRunLines(x: LaunchInput, bundle: LaunchBundle): string[] {
  const offer = x.offer;
  if (!offer || !bundle.files.some((f) => f.path === SKY_FILE)) return [];
  const resumes = bundle.outputs.some((o) => o.ok && o.resumes === true);
  const installs = installsOf(bundle);
  if (skyCommand(x, resumes) !== 'sky launch') return [...managedLines(x, installs), priceLine(x)];
  return [
    `- Rented (${offer.id}): \`sky launch ${SKY_FILE}\` from this folder, with SkyPilot ${SKYPILOT_VERSION} (\`pip install skypilot\`) and the cloud's credentials (\`sky check\`): it rents the machines, uploads this folder, ${installs}runs the command above on every machine (\`sky down\` releases them).`,
    `  - Price: the plan's cost uses vramplan's catalog price, $${offer.usdPerGpuHour}/GPU-hour ${offer.kind} from ${offer.provider} as of ${offer.asOf} (${offer.source}). SkyPilot prices the task from its own catalog when it launches and may find a different price, region or availability; \`sky launch\` shows its price before renting.`,
  ];
}

/** A spot training plan: a managed job that SkyPilot relaunches after a preemption (core/launch/spot-resume.ts). */
function managedLines(x: LaunchInput, installs: string): string[] {
  const offer = x.offer!;
  return [
    `- Rented on spot capacity (${offer.id}): \`sky jobs launch ${SKY_FILE}\` from this folder, with SkyPilot ${SKYPILOT_VERSION} (\`pip install skypilot\`) and the cloud's credentials (\`sky check\`): a managed job rents the machines, uploads this folder, ${installs}runs the command above; after a preemption SkyPilot rents new machines and runs it again, and the run resumes from the latest checkpoint in the mounted bucket (sky.yaml file_mounts). \`sky jobs queue\` shows it, \`sky jobs cancel\` stops it; the bucket outlives the job (delete it with \`sky storage delete\` once the model is copied out).`,
  ];
}

/** "installs <file> and " for the requirements file sky.yaml's setup installs (rentedRun), else nothing. */
function installsOf(bundle: LaunchBundle): string {
  const file = rentedRun(bundle.outputs)?.requirements;
  return file ? `installs ${file} and ` : '';
}

const priceLine = (x: LaunchInput): string => {
  const offer = x.offer!;
  return `  - Price: the plan's cost uses vramplan's catalog price, $${offer.usdPerGpuHour}/GPU-hour ${offer.kind} from ${offer.provider} as of ${offer.asOf} (${offer.source}). SkyPilot prices the task from its own catalog when it launches and may find a different price, region or availability; \`sky jobs launch\` shows its price before renting.`;
};
