/**
 * Every `npx vramplan …` command of README.md's and docs/*.md's `sh` and `console` blocks runs against the built CLI
 * (dist/cli.js), offline (HF_HUB_OFFLINE=1, an empty HOME and XDG_CACHE_HOME), from a temporary folder
 * that links the repository's `scenarios/` and `examples/` (so `--out run1` and `--export plans.json`
 * land there), and exits 0 — 1 where the README shows an error line, 2 where its comment says nothing
 * fits. A `console` block's first output line is the command's first line (`…` stands for any text).
 * The commands of one block run in order (a later one may read what an earlier one wrote); blocks run
 * in parallel.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliBuilt } from './helpers/run-cli.js';
import { ENGINES } from '../src/schema/engine.js';

interface ReadmeCommand {
  line: string;
  args: string[];
  /** The first output line the README shows, if it shows one. */
  first: string | null;
  exit: number;
}

/** Commands that write into the repository itself (not the temp folder), so are not run here. */
const WRITES_REPO = [/^schema --write\b/];

/** Fenced `sh` / `console` blocks of a Markdown text, each as its list of `npx vramplan` commands. */
export function readmeCommands(markdown: string): ReadmeCommand[][] {
  const blocks: ReadmeCommand[][] = [];
  const fence = /^```(sh|console)\n([\s\S]*?)^```/gm;
  for (const m of markdown.matchAll(fence)) {
    const isConsole = m[1] === 'console';
    // Join continuation lines ("…\" + newline + indented rest).
    const lines = m[2]!.replace(/\\\n\s*/g, '').split('\n');
    const block: ReadmeCommand[] = [];
    for (let i = 0; i < lines.length; i++) {
      let text = lines[i]!;
      if (isConsole) {
        if (!text.startsWith('$ ')) continue;
        text = text.slice(2);
      }
      const comment = /\s+#\s(.*)$/.exec(text)?.[1] ?? '';
      const command = text.replace(/\s+#\s.*$/, '').trim();
      if (!command.startsWith('npx vramplan')) continue;
      const next = isConsole ? lines[i + 1] : undefined;
      const first = next !== undefined && next !== '' && !next.startsWith('$ ') ? next : null;
      const args = command.split(/\s+/).slice(2);
      const exit = first?.startsWith('vramplan:') ? 1 : /nothing fits|exit 2/.test(comment) ? 2 : 0;
      block.push({ line: command, args, first, exit });
    }
    if (block.length > 0) blocks.push(block);
  }
  return blocks;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function runIn(cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 170_000);
    child.on('error', fail);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

/** `…` in the README's line stands for any text; the rest is literal. */
const lineMatcher = (shown: string): RegExp =>
  new RegExp(
    `^${shown
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*?')}$`,
  );

// The README and the reference pages it links (docs/*.md): every command shown anywhere runs.
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join('docs', f)),
];
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = pages.flatMap((page) => readmeCommands(readFileSync(join(ROOT, page), 'utf8')));
const scratch = mkdtempSync(join(tmpdir(), 'vramplan-readme-'));
const results = new Map<ReadmeCommand, Run>();

beforeAll(async () => {
  expect(cliBuilt()).toBe(true);
  const home = join(scratch, 'home');
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    HF_HUB_OFFLINE: '1',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    CI: '1',
  };
  await Promise.all(
    blocks.map(async (block, b) => {
      const cwd = join(scratch, `block-${b}`);
      mkdirSync(cwd);
      for (const dir of ['scenarios', 'examples']) symlinkSync(join(ROOT, dir), join(cwd, dir));
      for (const c of block) {
        if (WRITES_REPO.some((re) => re.test(c.args.join(' ')))) continue;
        const r = await runIn(cwd, env, c.args);
        // Paths the CLI prints are absolute; the README shows the folder as '…'.
        const rel = (s: string) => s.split(cwd).join('/home/you/vramplan');
        results.set(c, { ...r, stdout: rel(r.stdout), stderr: rel(r.stderr) });
      }
    }),
  );
}, 300_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('README.md commands', () => {
  it('finds the commands of every section, the first five minutes included', () => {
    const lines = blocks.flat().map((c) => c.line);
    expect(lines.length).toBeGreaterThanOrEqual(15);
    for (const needed of [
      'npx vramplan plan scenarios/default.yaml --no-tui',
      'npx vramplan explain --model llama-2-13b --gpu rtx-4090 --method lora',
      'npx vramplan launch scenarios/default.yaml --plan 1 --out run1',
    ])
      expect(lines).toContain(needed);
    // No placeholders: every command shown is one a reader can paste.
    for (const line of lines) expect(line, line).not.toMatch(/[[\]<>|]/);
  });

  it('the README is at most 300 lines and every page it links exists', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    const links = [
      ...readme.matchAll(/\]\(((?:docs|scenarios|examples|calibration)\/[^)#\s]+)/g),
    ].map((m) => m[1]!);
    expect(links.length).toBeGreaterThanOrEqual(8);
    for (const link of links) expect(existsSync(join(ROOT, link)), link).toBe(true);
  });

  it('the engine table names every registered engine, with what it estimates and what it launches', () => {
    const table = readme.slice(readme.indexOf('## Engines'), readme.indexOf('## Commands'));
    expect(table).toMatch(/\| engine \| estimated \| launched \|/);
    for (const engine of ENGINES) expect(table, engine).toContain(`\`${engine}\``);
  });

  it('npm start is the plan of the default scenario', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.start).toBe('node dist/cli.js plan scenarios/default.yaml');
    expect(blocks.flat().some((c) => c.line === 'npx vramplan plan scenarios/default.yaml')).toBe(
      true,
    );
  });

  for (const c of blocks.flat()) {
    if (WRITES_REPO.some((re) => re.test(c.args.join(' ')))) continue;
    it(c.line, () => {
      const r = results.get(c);
      expect(r, 'ran').toBeDefined();
      const { status, stdout, stderr } = r!;
      expect(status, stderr).toBe(c.exit);
      const out = c.exit === 1 ? stderr : stdout;
      const firstLine = out.split('\n')[0] ?? '';
      if (c.first !== null) expect(firstLine).toMatch(lineMatcher(c.first));
      else expect(firstLine.trim(), stderr).not.toBe('');
      if (c.exit !== 1) expect(stderr).not.toMatch(/^vramplan:/m);
    });
  }
});
