/**
 * The serving engines' shared profile (engines/serving-base.ts): it holds only what holds for serving in general,
 * never one engine's own measurement, and each serving engine states its own figures beside it instead of spreading
 * another engine's profile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVING_BASE } from '../../src/core/engines/serving-base.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { LLAMA_CPP_MEMORY } from '../../src/core/engines/llama-cpp/memory.js';

const ENGINES = join(import.meta.dirname, '../../src/core/engines');
const code = (text: string) =>
  text
    .split('\n')
    .filter((l) => !/^\s*(\/\/|\/\*|\*)/.test(l))
    .map((l) => l.replace(/\/\/.*$/, ''))
    .join('\n');

/** Every number inside a value (objects and arrays walked). */
const numbers = (v: unknown): number[] =>
  typeof v === 'number'
    ? [v]
    : v !== null && typeof v === 'object'
      ? Object.values(v).flatMap(numbers)
      : [];

/** Each engine folder's memory.ts with the identifiers its profile objects spread (`...NAME`). */
const spreads = readdirSync(ENGINES, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => {
    try {
      const text = code(readFileSync(join(ENGINES, d.name, 'memory.ts'), 'utf8'));
      return [
        {
          engine: d.name,
          text,
          names: [...text.matchAll(/\.\.\.\s*([A-Za-z_]\w*)/g)].map((m) => m[1]!),
        },
      ];
    } catch {
      return [];
    }
  });

describe('the serving base profile', () => {
  it('holds no host, kernel, timing or sizing figure: only no-training switches and zeros', () => {
    for (const [k, v] of Object.entries(SERVING_BASE)) {
      expect(k).not.toMatch(
        /Seconds|Cycles|Kernels|Calls|Bytes|MiB|Slack|server|Frontend|Budget|kvCache/i,
      );
      expect(typeof v, k).not.toBe('function');
      for (const n of numbers(v)) expect(n, k).toBe(0);
    }
  });

  it('names no vLLM figure and imports nothing from an engine folder', () => {
    const text = code(readFileSync(join(ENGINES, 'serving-base.ts'), 'utf8'));
    expect(text).not.toMatch(/VLLM|SGLANG|LLAMA_CPP/);
    expect(text).not.toMatch(/from '\.\/[\w-]+\//);
  });

  it("no field a serving engine takes from the base is one of vLLM's own host or kernel figures", () => {
    const own = Object.keys(VLLM_MEMORY).filter((k) =>
      /HostSeconds|Seconds$|Kernels|Cycles|Calls/.test(k),
    );
    expect(own).toContain('asyncStepHostSeconds'); // the scan sees vLLM's host figures
    for (const k of own) expect(Object.keys(SERVING_BASE)).not.toContain(k);
    for (const p of [VLLM_MEMORY, SGLANG_MEMORY, LLAMA_CPP_MEMORY])
      for (const k of Object.keys(SERVING_BASE))
        expect(p[k as keyof typeof p], `${p.id}.${k}`).toEqual(
          SERVING_BASE[k as keyof typeof SERVING_BASE],
        );
  });
});

describe('engine memory profiles', () => {
  it('finds the serving engines by their spread of the base', () => {
    const serving = spreads.filter((s) => s.names.includes('SERVING_BASE')).map((s) => s.engine);
    expect(serving.sort()).toEqual(['llama-cpp', 'sglang', 'vllm']);
  });

  it("no engine's profile spreads another engine's profile", () => {
    for (const s of spreads) {
      const imported = [
        ...s.text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\.\/[\w-]+\/memory\.js'/g),
      ]
        .flatMap((m) => m[1]!.split(','))
        .map((n) => n.replace(/\btype\b/, '').trim());
      for (const n of s.names) {
        expect(n, `${s.engine}/memory.ts spreads ${n}`).not.toMatch(/_MEMORY$/);
        expect(imported, `${s.engine}/memory.ts spreads ${n} from another engine`).not.toContain(n);
      }
    }
  });
});
