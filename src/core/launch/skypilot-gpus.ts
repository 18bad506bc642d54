/**
 * SkyPilot's names for vramplan's GPUs and its clouds for vramplan's providers (SkyPilot v0.14.1).
 * Names: the AcceleratorName column of SkyPilot's catalog
 * (https://github.com/skypilot-org/skypilot-catalog/blob/001ca549aad50db24c5670b5438bea0573a2b6c0/catalogs/v8/common/accelerators.csv)
 * and the per-cloud fetchers that write it (sky/catalog/data_fetchers/fetch_runpod.py DEFAULT_GPU_INFO and
 * GPU_NAME_OVERRIDES, fetch_lambda_cloud.py name_to_gpu, fetch_vast.py, fetch_aws.py at
 * https://github.com/skypilot-org/skypilot/tree/v0.14.1/sky/catalog/data_fetchers).
 */

/** A SkyPilot cloud name as `infra:` takes it, and what SkyPilot v0.14.1 does not run on it. */
export interface SkyCloud {
  infra: string;
  /** No multi-node clusters (CloudImplementationFeatures.MULTI_NODE in the cloud's _CLOUD_UNSUPPORTED_FEATURES). */
  multiNode: boolean;
  /** Spot instances (CloudImplementationFeatures.SPOT_INSTANCE). */
  spot: boolean;
  /** Buckets mounted in file_mounts, MOUNT or MOUNT_CACHED (CloudImplementationFeatures.STORAGE_MOUNTING). */
  bucketMounts: boolean;
}

/**
 * vramplan provider (catalogs/offers/<provider>.json) → SkyPilot cloud; null: SkyPilot has no such cloud
 * (sky/clouds/ at v0.14.1 has no Modal or Replicate), so the task names none and SkyPilot picks one.
 */
export const SKY_CLOUDS: Readonly<Record<string, SkyCloud | null>> = {
  aws: { infra: 'aws', multiNode: true, spot: true, bucketMounts: true }, // sky/clouds/aws.py
  // sky/clouds/lambda_cloud.py: SPOT_INSTANCE unsupported
  lambda: { infra: 'lambda', multiNode: true, spot: false, bucketMounts: true },
  // sky/clouds/runpod.py: MULTI_NODE and STORAGE_MOUNTING unsupported ("use `mode: COPY`")
  runpod: { infra: 'runpod', multiNode: false, spot: true, bucketMounts: false },
  // sky/clouds/vast.py: MULTI_NODE and STORAGE_MOUNTING unsupported
  vast: { infra: 'vast', multiNode: false, spot: true, bucketMounts: false },
  modal: null,
  replicate: null,
};

/**
 * Catalog GPU id → SkyPilot accelerator name: `name` where no cloud is named (SkyPilot's cross-cloud name in
 * accelerators.csv), `byCloud` where a cloud's catalog names the card differently.
 */
export const SKY_ACCELERATORS: Readonly<
  Record<string, { name: string; byCloud?: Readonly<Record<string, string>> }>
> = {
  t4: { name: 'T4' },
  l4: { name: 'L4' },
  l40s: { name: 'L40S' },
  a10: { name: 'A10' }, // Lambda gpu_1x_a10
  a10g: { name: 'A10G' }, // AWS g5
  'a100-40gb-sxm': { name: 'A100' }, // AWS p4d, Lambda gpu_1x_a100_sxm4
  'a100-40gb-pcie': { name: 'A100' },
  // RunPod: "A100-SXM" → A100-80GB-SXM, "A100-PCIe" → A100-80GB (GPU_NAME_OVERRIDES); Vast names every A100 "A100".
  'a100-80gb-sxm': { name: 'A100-80GB', byCloud: { runpod: 'A100-80GB-SXM', vast: 'A100' } },
  'a100-80gb-pcie': { name: 'A100-80GB', byCloud: { vast: 'A100' } },
  // RunPod: "H100-PCIe" → H100, H100 SXM is H100-SXM; AWS p5, Lambda and Vast call the SXM card H100.
  'h100-sxm': { name: 'H100', byCloud: { runpod: 'H100-SXM' } },
  'h100-pcie': { name: 'H100' },
  'h100-nvl': { name: 'H100-NVL', byCloud: { vast: 'H100' } },
  'h200-sxm': { name: 'H200', byCloud: { runpod: 'H200-SXM' } }, // AWS p5e (fetch_aws.py)
  gh200: { name: 'GH200' },
  b200: { name: 'B200' },
  'rtx-3090': { name: 'RTX3090' },
  'rtx-4090': { name: 'RTX4090' },
  'rtx-5090': { name: 'RTX5090' },
  'rtx-6000-ada': { name: 'RTX6000-Ada' },
  'rtx-a4000': { name: 'RTXA4000' },
  'rtx-a5000': { name: 'RTXA5000' },
  'rtx-a6000': { name: 'RTXA6000', byCloud: { lambda: 'A6000' } }, // Lambda gpu_1x_a6000
  // RunPod "RTX PRO 6000" → RTXPRO6000 (fetch_runpod.py); Vast lists the server edition as RTXPRO6000S.
  'rtx-pro-6000-blackwell': { name: 'RTXPRO6000', byCloud: { vast: 'RTXPRO6000S' } },
  'v100-16gb': { name: 'V100' },
  'v100-32gb': { name: 'V100-32GB' },
  mi300x: { name: 'MI300X' },
};

/** SkyPilot's accelerator name for `gpuId` on `cloud` (null: any cloud), or null when the table has none. */
export function skyAcceleratorOf(gpuId: string, cloud: SkyCloud | null): string | null {
  const row = SKY_ACCELERATORS[gpuId];
  if (!row) return null;
  return (cloud && row.byCloud?.[cloud.infra]) ?? row.name;
}

/** The catalog GPU id a SkyPilot accelerator name stands for on `infra` (the table read backwards), or null. */
export function gpuIdOfSky(name: string, infra: string | null): string | null {
  const lower = name.toLowerCase();
  const hits = Object.entries(SKY_ACCELERATORS).filter(
    ([, row]) => ((infra && row.byCloud?.[infra]) ?? row.name).toLowerCase() === lower,
  );
  return hits[0]?.[0] ?? null;
}
