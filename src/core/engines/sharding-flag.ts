/**
 * `launch --sharding <kind>`: the flag form names a ZeRO plan's engine by how it shards (deepspeed: Trainer +
 * DeepSpeed; fsdp: Accelerate FSDP), among the registered engines whose profile sets `shardingFlag`.
 */
import type { Framework } from '../../schema/estimate.js';
import { shardingKind, type Sharding } from './profile.js';
import { engineDefs } from './store.js';

/** One engine `--sharding` picks: the kind that names it and the framework its plans are estimated with. */
export interface ShardingChoice {
  kind: Sharding;
  framework: Framework;
}

/** Every engine `--sharding` picks, in registration order. */
export const shardingChoices = (): ShardingChoice[] =>
  engineDefs()
    .filter((d) => d.profile.shardingFlag === true)
    .map((d) => ({ kind: shardingKind(d.profile), framework: d.profile.framework }));

/** The kinds `--sharding` takes, sorted, each once. */
export const shardingKinds = (): Sharding[] =>
  [...new Set(shardingChoices().map((c) => c.kind))].sort();

/** The frameworks whose plans `--sharding` may move, each once, in the engines' order. */
export const shardingFrameworks = (): Framework[] => [
  ...new Set(shardingChoices().map((c) => c.framework)),
];

/**
 * The framework of the engine `--sharding kind` picks for a plan on `framework`: the engine of that kind on the
 * same framework, else the first registered of that kind; undefined for a kind no engine has.
 */
export function shardingFramework(kind: Sharding, framework: Framework): Framework | undefined {
  const of = shardingChoices().filter((c) => c.kind === kind);
  return (of.find((c) => c.framework === framework) ?? of[0])?.framework;
}
