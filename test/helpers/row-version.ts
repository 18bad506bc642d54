import { loadThroughputCases } from '../../src/io/load-calibration.js';

/** The engine build a calibration row names (calibration/throughput.json `engine_version`), read by row id. */
export function rowEngineVersion(id: string): string {
  const version = loadThroughputCases().find((c) => c.id === id)?.engine_version;
  if (version === undefined) throw new Error(`calibration row ${id} names no engine_version`);
  return version;
}
