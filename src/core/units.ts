/** Unit constants; memory is GiB (2^30), bandwidth and prices are decimal. */
export const MiB = 1024 ** 2;
export const GiB = 1024 ** 3;
