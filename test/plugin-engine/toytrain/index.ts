/**
 * A training engine that exists only in the tests: "toytrain", which allocates as torchtune does, shards ZeRO
 * stages with FSDP and is named by `launch --sharding fsdp`, and loads a tiled MLP. It is one folder and one
 * registration (`registerEngine(TOYTRAIN)`), with no change to src/: the traits test shows the flag checks
 * (`--tiled-mlp`, `--sharding`) accepting it from its profile alone, and `check` reading its log lines.
 */
import type { TrainLogReader } from '../../../src/core/check/readers.js';
import type { EngineDef } from '../../../src/core/engines/def.js';
import type { EngineRuns } from '../../../src/core/engines/runs.js';
import { TORCHTUNE_PROFILE } from '../../../src/core/engines/torchtune/profile.js';
import { TORCHTUNE_MEMORY } from '../../../src/core/engines/torchtune/memory.js';

// The engine's id and framework, declared to the types as a plug-in does.
declare module '../../../src/schema/engine.js' {
  interface PluginEngines {
    toytrain: true;
  }
}
declare module '../../../src/schema/estimate.js' {
  interface PluginFrameworks {
    toytrain: true;
  }
}

/** Its log line: "toy step N: S s" (seconds per optimizer step). */
const LOGS: TrainLogReader = {
  format: 'toytrain',
  order: 5,
  read: (lines) => {
    const secs = lines.flatMap((l) => /^toy step \d+: ([\d.]+) s$/.exec(l)?.slice(1) ?? []);
    return secs.length ? { stepSeconds: Number(secs[secs.length - 1]), steps: secs.length } : null;
  },
};

const RUNS: EngineRuns = { widen: {}, sources: { other: 'test/plugin-engine/toytrain/index.ts' } };

export const TOYTRAIN: EngineDef = {
  id: 'toytrain',
  profile: {
    ...TORCHTUNE_PROFILE,
    id: 'toytrain',
    framework: 'toytrain',
    tiledMlp: true,
    shardingFlag: true,
    docs: [],
    defaults: [],
    rules: [],
  },
  runs: RUNS,
  memory: { ...TORCHTUNE_MEMORY, id: 'toytrain', name: 'toytrain' },
  logs: LOGS,
  launcher: null,
};
