/** Typed, bounded access to one config.json object; errors name the field path. */
import type { SourceDtype } from '../arch.js';

// Bounds that keep hostile configs from hanging or overflowing the estimate: int32 sizes (torch shapes),
// 100x the deepest published model (the per-layer loop runs this many times), and 100T parameters
// (50x the largest published; keeps every byte count below Number.MAX_SAFE_INTEGER).
const MAX_CONFIG_INT = 2 ** 31 - 1;
export const MAX_LAYERS = 20_000;
export const MAX_PARAMS = 1e14;

/** A config.json field that is missing, of the wrong type, or outside its allowed values. */
export class ConfigError extends Error {
  constructor(
    readonly field: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`config.json ${field}: got ${showValue(value)}; expected ${allowed}`);
    this.name = 'ConfigError';
  }
}

export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return `'${value}'`;
  return JSON.stringify(value);
}

export type Json = Record<string, unknown>;
type Keys = string | readonly string[];

export const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Typed access to one config object; errors name the field path (e.g. `text_config.hidden_size`). */
export class Fields {
  constructor(
    readonly raw: Json,
    readonly path = '',
  ) {}

  /** First of `keys` that is present and not null. */
  private pick(keys: Keys): [string, unknown] | undefined {
    for (const key of typeof keys === 'string' ? [keys] : keys) {
      const v = this.raw[key];
      if (v !== undefined && v !== null) return [key, v];
    }
    return undefined;
  }

  private name(keys: Keys): string {
    return this.path + (typeof keys === 'string' ? keys : (keys[0] ?? ''));
  }

  has(keys: Keys): boolean {
    return this.pick(keys) !== undefined;
  }

  /** A positive integer up to `max`; `fallback` when absent (the config class default). */
  int(keys: Keys, fallback?: number, max = MAX_CONFIG_INT): number {
    const hit = this.pick(keys);
    if (hit === undefined) {
      if (fallback !== undefined) return fallback;
      throw new ConfigError(this.name(keys), undefined, 'a positive integer');
    }
    const [key, v] = hit;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) {
      throw new ConfigError(this.path + key, v, 'a positive integer');
    }
    if (v > max) throw new ConfigError(this.path + key, v, `a positive integer up to ${max}`);
    return v;
  }

  /** A non-negative integer (counts that may be zero). */
  count(keys: Keys, fallback: number): number {
    const hit = this.pick(keys);
    if (hit === undefined) return fallback;
    const [key, v] = hit;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_CONFIG_INT) {
      throw new ConfigError(this.path + key, v, `a non-negative integer up to ${MAX_CONFIG_INT}`);
    }
    return v;
  }

  optInt(keys: Keys): number | null {
    return this.has(keys) ? this.int(keys) : null;
  }

  num(keys: Keys, fallback: number): number {
    const hit = this.pick(keys);
    if (hit === undefined) return fallback;
    const [key, v] = hit;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new ConfigError(this.path + key, v, 'a non-negative number');
    }
    return v;
  }

  bool(keys: Keys, fallback: boolean): boolean {
    const hit = this.pick(keys);
    if (hit === undefined) return fallback;
    const [key, v] = hit;
    if (typeof v !== 'boolean') throw new ConfigError(this.path + key, v, 'true or false');
    return v;
  }

  str(keys: Keys, fallback?: string): string {
    const hit = this.pick(keys);
    if (hit === undefined) {
      if (fallback !== undefined) return fallback;
      throw new ConfigError(this.name(keys), undefined, 'a string');
    }
    const [key, v] = hit;
    if (typeof v !== 'string') throw new ConfigError(this.path + key, v, 'a string');
    return v;
  }

  intList(key: string): number[] {
    const v = this.raw[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v) || !v.every((x) => Number.isInteger(x) && x >= 0)) {
      throw new ConfigError(this.path + key, v, 'a list of layer indices');
    }
    return v as number[];
  }

  strList(key: string): string[] | null {
    const v = this.raw[key];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw new ConfigError(this.path + key, v, 'a list of strings');
    }
    return v as string[];
  }

  sub(key: string): Fields {
    const v = this.raw[key];
    if (!isObject(v)) throw new ConfigError(this.path + key, v, 'an object');
    return new Fields(v, `${this.path}${key}.`);
  }
}

/** torch_dtype / dtype names a config may give, as the storage dtype they stand for. */
export const DTYPES: Record<string, SourceDtype> = {
  float32: 'float32',
  fp32: 'float32',
  float: 'float32',
  float16: 'float16',
  fp16: 'float16',
  half: 'float16',
  bfloat16: 'bfloat16',
  bf16: 'bfloat16',
};
