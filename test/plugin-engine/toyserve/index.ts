/**
 * A serving engine that exists only in the tests: "toyserve", a server started as
 * `toyserve serve <model> --tp N --max-seqs N --max-len N`, which allocates as vLLM does. It is one folder and one
 * registration (`registerEngine(TOYSERVE)`), with no change to src/: the plug-in test shows the search ranking it,
 * estimate modelling it, launch writing its serve.sh and toyserve.json, and --from reading that script back and
 * the folder (its launch-folder reader takes the GPU count from toyserve.json).
 */
import type {
  EngineDef,
  EngineLauncher,
  LaunchFolderReader,
  ServeReader,
} from '../../../src/core/engines/def.js';
import type { EngineRuns } from '../../../src/core/engines/runs.js';
import { VLLM_PROFILE } from '../../../src/core/engines/vllm/profile.js';
import { VLLM_MEMORY } from '../../../src/core/engines/vllm/memory.js';
import { modelLines, servedCheckpoint } from '../../../src/core/engines/serve-common.js';
import { programName } from '../../../src/core/from/serve-line.js';

// The engine's id and framework, declared to the types as a plug-in does.
declare module '../../../src/schema/engine.js' {
  interface PluginEngines {
    toyserve: true;
  }
}
declare module '../../../src/schema/estimate.js' {
  interface PluginFrameworks {
    toyserve: true;
  }
}

const RUNS: EngineRuns = { widen: {}, sources: { other: 'test/plugin-engine/toyserve/index.ts' } };

/** `toyserve serve <model> --tp N --max-seqs N --max-len N`. */
const SERVE: ServeReader = {
  name: 'toyserve serve command line',
  start: (words, i) =>
    programName(words[i]!) === 'toyserve' && words[i + 1] === 'serve' ? i + 2 : null,
  read: (c) => {
    const value = (flag: string) => {
      const i = c.args.indexOf(flag);
      return i < 0 ? undefined : Number(c.args[i + 1]);
    };
    const tp = value('--tp') ?? 1;
    const flags: Record<string, string | number> = { method: 'inference', framework: 'toyserve' };
    if (tp > 1) flags.tp = tp;
    flags.batch = value('--max-seqs') ?? 1;
    const seq = value('--max-len');
    if (seq !== undefined) flags.seq = seq;
    const model = c.args[0] !== undefined && !c.args[0].startsWith('-') ? c.args[0] : null;
    return { flags, gpus: tp, model, warnings: [], ignored: [], unknown: [] };
  },
  flagNames: ['--tp', '--max-seqs', '--max-len'],
  configFile: false,
};

/** Beside serve.sh, the GPUs the plan runs on (one server's `--tp` does not say how many replicas there are). */
const PLACEMENT = 'toyserve.json';

/** serve.sh (a name the built-in servers write too: --from picks this reader by the script's engine). */
const FOLDER: LaunchFolderReader = {
  files: ['serve.sh'],
  read: (flags, folder) => {
    const text = folder.text(PLACEMENT);
    const gpus = text === null ? undefined : (JSON.parse(text) as { gpus?: unknown }).gpus;
    return typeof gpus === 'number' ? { ...flags, gpus } : flags;
  },
};

const LAUNCHER: EngineLauncher = {
  blocker: (x) => (x.options.method === 'inference' ? null : 'toyserve serves only'),
  emit: (x) => {
    const o = x.options;
    const lines = [
      '#!/usr/bin/env bash',
      'set -euo pipefail',
      ...modelLines(servedCheckpoint(x)),
      `toyserve serve "$MODEL" --tp ${o.tp} --max-seqs ${o.batch} --max-len ${o.seq}`,
    ];
    return [
      {
        engine: 'toyserve',
        ok: true,
        files: [
          { path: 'serve.sh', content: `${lines.join('\n')}\n` },
          { path: PLACEMENT, content: `${JSON.stringify({ gpus: o.gpus })}\n` },
        ],
        notes: [],
      },
    ];
  },
};

export const TOYSERVE: EngineDef = {
  id: 'toyserve',
  profile: {
    ...VLLM_PROFILE,
    id: 'toyserve',
    framework: 'toyserve',
    docs: [],
    defaults: [],
    rules: [],
  },
  runs: RUNS,
  memory: { ...VLLM_MEMORY, id: 'toyserve', name: 'toyserve' },
  serve: SERVE,
  launchFolder: FOLDER,
  launcher: { load: () => Promise.resolve(LAUNCHER) },
};
