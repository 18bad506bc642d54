// Every written launch folder against what the real libraries accepted, offline: the fixtures that
// scripts/check-launch-libs/check.py recorded (pip's resolution of each requirements file; the config keys
// TRL, PEFT, transformers, Accelerate and DeepSpeed accept at the pinned versions). A folder whose pins were
// never resolved, or did not resolve, fails here until the script is run again and the set resolves.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  engineKindFolders,
  scenarioFolders,
  type Folder,
} from '../scripts/check-launch-libs/folders.js';

interface Env {
  kind: string;
  pins: string[];
  status: 'resolved' | 'conflict';
  resolved?: Record<string, string>;
  error?: string;
}
const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`./fixtures/launch-libs/${name}`, import.meta.url), 'utf8')) as T;
const RESOLVED = fixture<{ checked: string; environments: Env[] }>('resolved.json');
const ACCEPTED = fixture<{ versions: Record<string, string>; keys: Record<string, string[]> }>(
  'accepted-keys.json',
);

/** The requirement lines of a requirements file, as check.py reads them (comments and blanks dropped). */
const pinsOf = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.split('#')[0]!.trim())
    .filter(Boolean);
const setOf = (pins: string[]): string =>
  pins
    .map((p) => p.toLowerCase())
    .sort()
    .join('\n');
const ENVS = new Map(RESOLVED.environments.map((e) => [setOf(e.pins), e]));

const TRL_CLASS: Record<string, string> = {
  sft: 'SFTConfig',
  dpo: 'DPOConfig',
  grpo: 'GRPOConfig',
  orpo: 'ORPOConfig',
  kto: 'KTOConfig',
  cpo: 'CPOConfig',
};

/** Keys of `obj` that `lib` does not accept (its recorded fields at the pinned version). */
function unknownKeys(obj: Record<string, unknown>, lib: string): string[] {
  const accepted = ACCEPTED.keys[lib];
  if (!accepted) throw new Error(`no accepted keys recorded for ${lib}: run check-launch-libs`);
  const set = new Set(accepted);
  return Object.keys(obj).filter((k) => !set.has(k));
}

let folders: Folder[] = [];
beforeAll(async () => {
  folders = [...engineKindFolders(), ...(await scenarioFolders())];
}, 300_000);

const file = (f: Folder, path: string): string | undefined =>
  f.files.find((x) => x.path === path)?.content;

describe('launch folders against the libraries (fixtures from scripts/check-launch-libs)', () => {
  it('covers every engine and the first plan of every shipped scenario', () => {
    expect(folders.length).toBeGreaterThanOrEqual(30);
    expect(folders.filter((f) => f.name.startsWith('scenario-')).length).toBeGreaterThanOrEqual(10);
  });

  it('every requirements file is a pin set pip resolved', () => {
    const missing: string[] = [];
    const conflicts: string[] = [];
    for (const f of folders)
      for (const r of f.files.filter((x) => /^requirements.*\.txt$/.test(x.path))) {
        const env = ENVS.get(setOf(pinsOf(r.content)));
        if (!env) missing.push(`${f.name}/${r.path}: ${pinsOf(r.content).join(' ')}`);
        else if (env.status !== 'resolved')
          conflicts.push(`${f.name}/${r.path}: ${env.error?.split('\n').pop() ?? 'conflict'}`);
      }
    expect(missing, 'pin sets never resolved: run scripts/check-launch-libs').toEqual([]);
    expect(conflicts, 'pin sets pip cannot install').toEqual([]);
  });

  it('hf-args.json: every key is one TRL, PEFT and transformers accept at the pinned versions', () => {
    const bad: string[] = [];
    for (const f of folders) {
      const text = file(f, 'hf-args.json');
      if (!text) continue;
      const a = JSON.parse(text) as Record<string, unknown>;
      const name = typeof a.trainer === 'string' ? a.trainer : 'sft';
      const block = a[`${name}_config`] as Record<string, unknown>;
      for (const k of unknownKeys(block, TRL_CLASS[name]!))
        bad.push(`${f.name}: ${name}_config.${k}`);
      if (a.lora_config)
        for (const k of unknownKeys(a.lora_config as Record<string, unknown>, 'LoraConfig'))
          bad.push(`${f.name}: lora_config.${k}`);
      if (a.bnb_config)
        for (const k of unknownKeys(a.bnb_config as Record<string, unknown>, 'BitsAndBytesConfig'))
          bad.push(`${f.name}: bnb_config.${k}`);
    }
    expect(bad).toEqual([]);
  });

  it('accelerate.yaml: config-file fields Accelerate loads, FSDP/DeepSpeed keys its launcher reads', () => {
    const bad: string[] = [];
    const launch = new Set(ACCEPTED.keys['accelerate launch']);
    for (const f of folders) {
      const text = file(f, 'accelerate.yaml');
      if (!text) continue;
      const c = parse(text) as Record<string, unknown>;
      for (const k of unknownKeys(c, 'accelerate.ClusterConfig')) bad.push(`${f.name}: ${k}`);
      for (const sub of ['fsdp_config', 'deepspeed_config'])
        for (const k of Object.keys((c[sub] as Record<string, unknown> | undefined) ?? {}))
          if (!launch.has(k)) bad.push(`${f.name}: ${sub}.${k}`);
    }
    expect(bad).toEqual([]);
  });

  it('deepspeed.json: zero_optimization keys DeepSpeed accepts', () => {
    const zero = ACCEPTED.keys['deepspeed zero_optimization'];
    const bad: string[] = [];
    for (const f of folders) {
      const text = file(f, 'deepspeed.json');
      if (!text || !zero) continue;
      const z = (JSON.parse(text) as { zero_optimization: Record<string, unknown> })
        .zero_optimization;
      for (const k of unknownKeys(z, 'deepspeed zero_optimization')) bad.push(`${f.name}: ${k}`);
    }
    expect(bad).toEqual([]);
  });
});
