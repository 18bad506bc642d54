/**
 * `estimate --from` and `plan --from` of a serve line with a GPU: the batch becomes what the server runs at once
 * (core/from/pool-batch.ts), unless the command line gives --batch or --seq (the contract's batch x sequence).
 */
import { withEngineDefaults } from '../core/engines/defaults.js';
import type { FromMapping } from '../core/from/common.js';
import { admittedBatch } from '../core/from/pool-batch.js';
import type { Arch } from '../core/model/arch.js';
import type { Gpu } from '../schema/gpu.js';
import { optionsFromFlags } from '../schema/flags.js';
import { timeOptionsFromFlags } from '../schema/time.js';

/** Sets `flags.batch` to the admitted batch and swaps the reader's cap line in `config.warnings` for its own. */
export function admitFromPool(
  config: FromMapping,
  cli: Readonly<Record<string, unknown>>,
  flags: Record<string, unknown>,
  arch: Arch,
  gpu: Gpu | undefined,
): void {
  const admission = config.poolAdmission;
  if (!admission || !gpu || cli.batch !== undefined || cli.seq !== undefined) return;
  let r: ReturnType<typeof admittedBatch>;
  try {
    const options = withEngineDefaults(optionsFromFlags(flags), flags);
    const time = timeOptionsFromFlags(flags, options, gpu.boardPowerW);
    r = admittedBatch(arch, options, gpu, admission, time, config.build);
  } catch {
    // A configuration the estimate refuses: its own checks report it, at the line's cap.
    return;
  }
  if (!r) return;
  flags.batch = r.batch;
  const at = admission.readNote === undefined ? -1 : config.warnings.indexOf(admission.readNote);
  if (at >= 0) config.warnings.splice(at, 1, r.line);
  else config.warnings.push(r.line);
}
