/** The launch README's lines for a rented plan's SkyPilot task (core/launch/skypilot.ts). */
import type { LaunchBundle, LaunchInput } from '../core/launch/index.js';
import { SKY_FILE, SKYPILOT_VERSION } from '../core/launch/skypilot.js';

/** How to start sky.yaml and what its price means; nothing when the folder has no task. */
export function skyRunLines(x: LaunchInput, bundle: LaunchBundle): string[] {
  const offer = x.offer;
  if (!offer || !bundle.files.some((f) => f.path === SKY_FILE)) return [];
  return [
    `- Rented (${offer.id}): \`sky launch ${SKY_FILE}\` from this folder, with SkyPilot ${SKYPILOT_VERSION} (\`pip install skypilot\`) and the cloud's credentials (\`sky check\`): it rents the machines, uploads this folder, installs requirements.txt and runs the script above on every machine (\`sky down\` releases them).`,
    `  - Price: the plan's cost uses vramplan's catalog price, $${offer.usdPerGpuHour}/GPU-hour ${offer.kind} from ${offer.provider} as of ${offer.asOf} (${offer.source}). SkyPilot prices the task from its own catalog when it launches and may find a different price, region or availability; \`sky launch\` shows its price before renting.`,
  ];
}
