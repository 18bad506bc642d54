// Sweep: every model catalog file parses, is named by its id, and yields an Arch and exact counts.
import { readFileSync, readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { archFromHfConfig } from '../src/core/model/index.js';
import { paramCounts } from '../src/core/model/index.js';
import { listModels, resolveModel } from '../src/io/load-model.js';
import { modelEntrySchema } from '../src/schema/model.js';

const dir = new URL('../catalogs/models/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
const readJson = (url: URL): unknown => JSON.parse(readFileSync(url, 'utf8'));

describe('catalogs/models', () => {
  it('has the models the product needs', () => {
    expect(files.length).toBeGreaterThanOrEqual(60);
  });

  it.each(files)('%s parses, id = file name, gives an Arch and parameter counts', (file) => {
    const entry = modelEntrySchema.parse(readJson(new URL(file, dir)));
    expect(entry.id).toBe(basename(file, '.json'));
    const arch = archFromHfConfig(entry.config, { id: entry.id, hfId: entry.hfId });
    const counts = paramCounts(arch);
    expect(counts.total).toBeGreaterThan(0);
    expect(counts.active).toBeLessThanOrEqual(counts.total);
    expect(counts.total).toBe(
      counts.embed + counts.lmHead + counts.linear + counts.linearBias + counts.other,
    );
    expect(counts.checkpoint).toBe(counts.total + counts.mtp);
    // paramsPublished is the headline count (the model, MTP layers apart); checkpointParamsPublished what the
    // checkpoint's files hold (a Hub safetensors total, MTP layers included).
    expectPublished(counts.total, entry.paramsPublished);
    expectPublished(counts.checkpoint, entry.checkpointParamsPublished);
  });

  it('no two entries answer to the same name', () => {
    const seen = new Map<string, string>();
    for (const m of listModels()) {
      for (const name of [m.id, m.hfId, ...m.aliases, ...(m.quantized ?? []).map((q) => q.repo)]) {
        if (name === null) continue;
        const key = name.toLowerCase();
        expect(seen.get(key) ?? m.id, `${name} is claimed twice`).toBe(m.id);
        seen.set(key, m.id);
      }
    }
  });
});

/** A model card's rounded figure (a multiple of 1e8) is met within 0.5%; an exact count exactly. */
function expectPublished(count: number, published: number | undefined): void {
  if (published !== undefined && published % 1e8 === 0)
    expect(Math.abs(count - published) / published).toBeLessThan(0.005);
  else if (published !== undefined) expect(count).toBe(published);
}

interface CalibrationCase {
  model_hf_id: string | null;
  config_file: string;
}

// The calibration cases (copied into calibration/ from the shared set) name their model by HF id.
describe('every calibration model resolves to a catalog entry with the same architecture', () => {
  const calibration = new URL('../calibration/', import.meta.url);
  const cases = [
    ...(readJson(new URL('cases.json', calibration)) as CalibrationCase[]),
    ...(readJson(new URL('informative.json', calibration)) as CalibrationCase[]),
  ];
  const configs = [...new Set(cases.map((c) => c.config_file))].sort();
  const catalog = listModels();

  it.each(configs)('%s', (configFile) => {
    const config = readJson(new URL(`configs/${configFile}`, calibration));
    const hfId = cases.find((c) => c.config_file === configFile)?.model_hf_id ?? null;
    const entry = hfId
      ? resolveModel(hfId)
      : (() => {
          const byConfig = catalog.find((m) => isDeepStrictEqual(m.config, config));
          if (!byConfig) throw new Error(`no catalog entry holds ${configFile}`);
          return resolveModel(byConfig.id);
        })();
    const direct = archFromHfConfig(config, { id: entry.id, hfId });
    expect(paramCounts(entry)).toEqual(paramCounts(direct));
    expect(entry.groups).toEqual(direct.groups);
  });
});
