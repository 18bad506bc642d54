/**
 * The one host-RAM figure: the busiest node's peak (core/memory/host-ram.ts, a plan's
 * `hostRam`, explain's `hostRam`, the launch README's), one label and one rounding in every view.
 */
import { formatGiB } from './format.js';

export const HOST_RAM_LABEL = 'host RAM per node';

/** "24.0 GiB": the per-node peak, one decimal, as the table, explain, the explorer and the README show it. */
export const hostRamFigure = (h: { perNodeBytes: number }): string => formatGiB(h.perNodeBytes, 1);

/** "host RAM per node 24.0 GiB". */
export const hostRamLine = (h: { perNodeBytes: number }): string =>
  `${HOST_RAM_LABEL} ${hostRamFigure(h)}`;
