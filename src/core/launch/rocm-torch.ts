/**
 * torch for an AMD GPU in a launch folder's requirements. PyPI's torch wheel is the CUDA build; PyTorch publishes
 * its ROCm builds only on its own wheel index, one folder per ROCm variant, each torch version tagged with that
 * variant as a local version (torch==2.12.1+rocm7.2 at https://download.pytorch.org/whl/rocm7.2). A requirements
 * file names that index with --extra-index-url (PyPI keeps serving the other packages) and pins the local version,
 * so no resolver can take PyPI's CUDA wheel of the same version; the pinned version is also what
 * importlib.metadata reports, so `vramplan check` compares the pin with the installed build as written.
 */
import type { Gpu } from '../../schema/gpu.js';

/** PyTorch's wheel index (a ROCm variant's folder sits under it). */
export const TORCH_WHEEL_INDEX = 'https://download.pytorch.org/whl';

/**
 * The ROCm variant a torch release line is installed from: the newest of the two ROCm versions PyTorch's release
 * matrix builds for it (pytorch/test-infra tools/scripts/generate_binary_build_matrix.py ROCM_ARCHES_DICT
 * "release" while CURRENT_STABLE_VERSION was that line: 2.6.0 ["6.1", "6.2.4"] at b1bdc332; 2.8.0 ["6.3", "6.4"]
 * at 21480431; 2.10.0 ["7.0", "7.1"] at e8208cf2; 2.11.0 ["7.1", "7.2"] at 0cd5e78a; 2.12.0/2.12.1 ["7.1", "7.2"]
 * at 626d4e70/77e179c3; desired_cuda "rocm{version}" names the index folder). 2.15 was released after that
 * repository's last stored commit (61a77570, 2026-08-21), whose nightly channel (CURRENT_NIGHTLY_VERSION 2.15.0)
 * builds ["7.2", "7.14"]: rocm7.2, the variant that line shares with 2.11-2.13 (approximate until its release row).
 */
export const TORCH_ROCM_VARIANT: Readonly<Record<string, string>> = {
  '2.6': 'rocm6.2.4',
  '2.8': 'rocm6.4',
  '2.10': 'rocm7.1',
  '2.11': 'rocm7.2',
  '2.12': 'rocm7.2',
  '2.15': 'rocm7.2',
};

const lineOf = (version: string): string => version.split('.').slice(0, 2).join('.');

/** Whether the launch folder installs torch for ROCm: an AMD GPU. */
export const needsRocmTorch = (gpu: Pick<Gpu, 'vendor'>): boolean => gpu.vendor === 'amd';

/** The ROCm variant torch `version` installs from (throws on a release line the table does not hold). */
export function torchRocmVariant(version: string): string {
  const v = TORCH_ROCM_VARIANT[lineOf(version)];
  if (v === undefined) throw new Error(`no ROCm wheel variant recorded for torch ${version}`);
  return v;
}

/**
 * The requirements lines that install torch `version` on `gpu`: the PyPI pin on NVIDIA and Apple GPUs; on an AMD
 * GPU, a comment, PyTorch's ROCm index and the ROCm build's local-version pin.
 */
export function torchRequirementLines(gpu: Pick<Gpu, 'vendor'>, version: string): string[] {
  if (!needsRocmTorch(gpu)) return [`torch==${version}`];
  const variant = torchRocmVariant(version);
  return [
    `# AMD GPU (ROCm): PyPI's torch is the CUDA build; PyTorch's ${variant} index has the ROCm build of ${version}.`,
    `--extra-index-url ${TORCH_WHEEL_INDEX}/${variant}`,
    `torch==${version}+${variant}`,
  ];
}

/** `lines` (requirements lines) with each `torch==<version>` line replaced by torchRequirementLines. */
export function withRocmTorch(gpu: Pick<Gpu, 'vendor'>, lines: readonly string[]): string[] {
  return lines.flatMap((l) => {
    const m = /^torch==([0-9][^\s;#+]*)$/.exec(l.trim());
    return m ? torchRequirementLines(gpu, m[1]!) : [l];
  });
}

/**
 * The first ROCm release with gfx950 (MI350X/MI355X) in its libraries: ROCm 7.0.0 (its component releases, e.g.
 * https://github.com/ROCm/hipFFT/releases/tag/rocm-7.0.0 "Added gfx950 support"). PyTorch's wheel builder
 * compiled gfx950 only against ROCm 7.0 and later until pytorch/pytorch#167299 (2025-11-07, "Removed the ROCm 7.0
 * version check") made it unconditional for the variants built since (`.ci/docker/manywheel/build.sh`
 * PYTORCH_ROCM_ARCH). gfx90a, gfx942 and gfx1100 are in every variant's list TORCH_ROCM_VARIANT holds
 * (pytorch/pytorch#147394, 2025-02-18, keeps gfx942 and drops gfx940/gfx941 from it).
 */
const GFX950_ROCM: readonly [number, number] = [7, 0];
const GFX950_SOURCE = 'https://github.com/ROCm/hipFFT/releases/tag/rocm-7.0.0';

/** Why torch `version`'s ROCm wheels carry no kernels for gfx target `gfx`, or null (they do, or not ROCm). */
export function torchRocmRefusal(version: string, gfx: string): string | null {
  if (gfx !== 'gfx950') return null;
  const variant = torchRocmVariant(version);
  const [major = 0, minor = 0] = variant.replace('rocm', '').split('.').map(Number);
  const [m0, m1] = GFX950_ROCM;
  if (major > m0 || (major === m0 && minor >= m1)) return null;
  return `torch ${version} installs from PyTorch's ${variant} wheels, built before ROCm ${m0}.${m1} added gfx950 (PyTorch compiled gfx950 into its ROCm ${m0}.${m1}+ wheels only: pytorch/pytorch#167299; ${GFX950_SOURCE})`;
}
