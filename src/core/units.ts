/** Unit constants and conversions; memory is GiB (2^30), bandwidth and prices are decimal. */
export const KiB = 1024;
export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;
export const GB = 1e9;

export const bytesToGiB = (bytes: number): number => bytes / GiB;
export const gibToBytes = (gib: number): number => gib * GiB;
export const mibToBytes = (mib: number): number => mib * MiB;
