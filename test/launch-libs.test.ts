// Every written launch folder against what the real libraries accepted, offline: the fixtures that
// scripts/check-launch-libs/check.py recorded (pip's resolution of each requirements file; the config keys
// TRL, PEFT, transformers, Accelerate and DeepSpeed accept at the pinned versions; axolotl's schema keys; the
// options vLLM's and SGLang's parsers and llama-server's option table accept). A folder whose pins were
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
interface ParserOption {
  nargs: number | string;
  choices: string[] | null;
}
interface EngineTables {
  vllm: { version: string; options: Record<string, ParserOption> };
  sglang: { version: string; options: Record<string, ParserOption> };
  'llama.cpp': {
    source: string;
    flags: Record<string, number>;
    cache_types: string[];
    flash_attn: string[];
  };
  axolotl: { version: string; keys: Record<string, string[]> };
  litgpt: { version: string; keys: Record<string, string[]> };
  unsloth: { version: string; keys: Record<string, string[]> };
}
const ENGINES = fixture<{ engines: EngineTables }>('engine-args.json').engines;

/** Shell lines of a script, backslash continuations joined, comments and blanks dropped. */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const line of text.split('\n')) {
    const s = line.trimEnd();
    if (s.endsWith('\\')) {
      cur += `${s.slice(0, -1)} `;
      continue;
    }
    cur += s;
    if (cur.trim() && !cur.trimStart().startsWith('#')) out.push(cur.trim());
    cur = '';
  }
  return out;
}

/** Words of a command line as the shell splits it (double quotes only: what serve.sh writes). */
const words = (line: string): string[] =>
  [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);

/** The arguments after `marker` on every line of serve.sh that runs the server. */
function serverArgv(text: string, marker: string[]): string[][] {
  const out: string[][] = [];
  for (const line of logicalLines(text)) {
    const w = words(line);
    const at = w.findIndex((_, i) => marker.every((m, j) => w[i + j] === m));
    if (at >= 0) out.push(w.slice(at + marker.length).filter((x) => x !== '&'));
  }
  return out;
}

/** What an argparse parser with these options refuses in argv (long options, as serve.sh writes them). */
function argparseRefusals(argv: string[], options: Record<string, ParserOption>): string[] {
  const bad: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-')) continue; // a positional (vllm serve's model) or a value
    const opt = options[a];
    if (!opt) {
      bad.push(`unrecognized argument ${a}`);
      continue;
    }
    if (opt.nargs === 0) continue;
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) bad.push(`${a} expects a value`);
    else if (opt.choices && !opt.choices.includes(value))
      bad.push(`${a} ${value}: not one of ${opt.choices.join(', ')}`);
    i++;
  }
  return bad;
}

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

  it('serve.sh: vLLM and SGLang command lines use options their parsers accept, with accepted values', () => {
    const bad: string[] = [];
    let lines = 0;
    for (const f of folders) {
      const text = file(f, 'serve.sh');
      if (!text) continue;
      for (const [engine, marker] of [
        ['vllm', ['vllm', 'serve']],
        ['sglang', ['python', '-m', 'sglang.launch_server']],
      ] as const)
        for (const argv of serverArgv(text, [...marker])) {
          lines++;
          for (const why of argparseRefusals(argv, ENGINES[engine].options))
            bad.push(`${f.name}: ${engine} ${ENGINES[engine].version}: ${why}`);
        }
    }
    expect(lines).toBeGreaterThanOrEqual(5);
    expect(bad).toEqual([]);
  });

  it("serve.sh: llama-server lines use options of llama.cpp's own option table, with accepted values", () => {
    const t = ENGINES['llama.cpp'];
    const bad: string[] = [];
    let lines = 0;
    for (const f of folders) {
      const text = file(f, 'serve.sh');
      if (!text) continue;
      for (const argv of serverArgv(text, ['llama-server'])) {
        lines++;
        for (let i = 0; i < argv.length; i++) {
          // common_params_parse_ex: a --long_name may spell _ for -; then as many values as the handler takes
          const a = argv[i]!.startsWith('--') ? argv[i]!.replace(/_/g, '-') : argv[i]!;
          const n = t.flags[a];
          if (n === undefined) {
            bad.push(`${f.name}: invalid argument ${a} (${t.source})`);
            continue;
          }
          const v = argv[i + 1];
          if (
            ['-ctk', '--cache-type-k', '-ctv', '--cache-type-v'].includes(a) &&
            !t.cache_types.includes(v!)
          )
            bad.push(`${f.name}: ${a} ${v}: not a cache type`);
          if (['-fa', '--flash-attn'].includes(a) && !t.flash_attn.includes(v!))
            bad.push(`${f.name}: ${a} ${v}: not on/off/auto`);
          i += n;
        }
      }
    }
    expect(lines).toBeGreaterThanOrEqual(1);
    expect(bad).toEqual([]);
  });

  it("axolotl.yaml: every key is in axolotl's schema (with the plugins the file names)", () => {
    const keys = ENGINES.axolotl.keys;
    const bad: string[] = [];
    let n = 0;
    for (const f of folders) {
      const text = file(f, 'axolotl.yaml');
      if (!text) continue;
      n++;
      const c = parse(text) as Record<string, unknown>;
      const plugins = (c.plugins as string[] | undefined) ?? [];
      for (const p of plugins) if (!keys[p]) bad.push(`${f.name}: plugin ${p} not recorded`);
      const known = new Set([...keys.config!, ...plugins.flatMap((p) => keys[p] ?? [])]);
      for (const k of Object.keys(c))
        if (!known.has(k)) bad.push(`${f.name}: ${k} (axolotl ${ENGINES.axolotl.version})`);
    }
    expect(n).toBeGreaterThanOrEqual(5);
    expect(bad).toEqual([]);
  });

  it('litgpt.yaml: every key is an option of the LitGPT subcommand launch.sh runs it with', () => {
    const t = ENGINES.litgpt;
    const bad: string[] = [];
    let n = 0;
    // dotted keys as jsonargparse names them; a class_path block is one option (data, optimizer)
    const dotted = (o: Record<string, unknown>, pre = ''): string[] =>
      Object.entries(o).flatMap(([k, v]) =>
        v && typeof v === 'object' && !Array.isArray(v) && !('class_path' in v)
          ? dotted(v as Record<string, unknown>, `${pre}${k}.`)
          : [`${pre}${k}`],
      );
    for (const f of folders) {
      const text = file(f, 'litgpt.yaml');
      if (!text) continue;
      const line = logicalLines(file(f, 'launch.sh')!).find((l) => /--config litgpt\.yaml/.test(l));
      const sub = line ? words(line)[words(line).indexOf('litgpt') + 1] : undefined;
      if (!sub || !t.keys[sub]) {
        bad.push(
          `${f.name}: launch.sh runs no recorded litgpt subcommand with --config litgpt.yaml`,
        );
        continue;
      }
      n++;
      const known = new Set(t.keys[sub]);
      for (const k of dotted(parse(text) as Record<string, unknown>))
        if (!known.has(k)) bad.push(`${f.name}: ${k} (litgpt ${t.version} ${sub})`);
    }
    expect(n).toBeGreaterThanOrEqual(1);
    expect(bad).toEqual([]);
  });

  it("unsloth-args.json: trainer and LoRA keys TRL's and PEFT's classes under Unsloth accept at its pins", () => {
    const t = ENGINES.unsloth;
    const bad: string[] = [];
    let n = 0;
    for (const f of folders) {
      const text = file(f, 'unsloth-args.json');
      if (!text) continue;
      n++;
      const a = JSON.parse(text) as Record<string, unknown>;
      const name = typeof a.trainer === 'string' ? a.trainer : 'sft';
      const accepted = new Set(t.keys[TRL_CLASS[name]!]);
      for (const k of Object.keys(a[`${name}_config`] as Record<string, unknown>))
        if (!accepted.has(k)) bad.push(`${f.name}: ${name}_config.${k} (${t.version})`);
      const lora = new Set(t.keys.LoraConfig);
      for (const k of Object.keys((a.get_peft_model as Record<string, unknown>) ?? {}))
        if (!lora.has(k)) bad.push(`${f.name}: get_peft_model.${k} (${t.version})`);
    }
    expect(n).toBeGreaterThanOrEqual(3);
    expect(bad).toEqual([]);
  });

  it("each engine's recorded parser or schema is the release its folders pin", () => {
    const pinOf = (f: Folder, path: string, name: string): string | undefined => {
      const text = file(f, path);
      const line = text && pinsOf(text).find((p) => p.split(/[[=]/)[0] === name);
      return line?.split('==')[1];
    };
    const bad: string[] = [];
    for (const f of folders) {
      const serve = file(f, 'serve.sh') ?? '';
      const want: [string, string | undefined, string][] = [];
      if (serve.includes('vllm serve'))
        want.push(['vllm', pinOf(f, 'requirements.txt', 'vllm'), ENGINES.vllm.version]);
      if (serve.includes('sglang.launch_server'))
        want.push(['sglang', pinOf(f, 'requirements.txt', 'sglang'), ENGINES.sglang.version]);
      if (file(f, 'axolotl.yaml'))
        want.push([
          'axolotl',
          pinOf(f, 'requirements-axolotl.txt', 'axolotl'),
          ENGINES.axolotl.version,
        ]);
      if (file(f, 'litgpt.yaml'))
        want.push(['litgpt', pinOf(f, 'requirements.txt', 'litgpt'), ENGINES.litgpt.version]);
      if (file(f, 'unsloth-args.json'))
        want.push([
          'trl',
          pinOf(f, 'requirements.txt', 'trl'),
          ENGINES.unsloth.version.match(/trl (\S+),/)?.[1] ?? '',
        ]);
      if (file(f, 'hf-args.json'))
        for (const lib of [
          'transformers',
          'trl',
          'peft',
          'accelerate',
          'bitsandbytes',
          'deepspeed',
        ])
          if (pinOf(f, 'requirements.txt', lib))
            want.push([lib, pinOf(f, 'requirements.txt', lib), ACCEPTED.versions[lib] ?? '']);
      for (const [lib, pinned, recorded] of want)
        if (pinned !== recorded)
          bad.push(`${f.name}: ${lib} pinned ${pinned}, recorded at ${recorded}`);
    }
    expect(bad, 'run scripts/check-launch-libs at the new pins').toEqual([]);
  });
});
