/** The catalog command's body. */
import { badValue } from '../io/errors.js';
import { loadCircuits, loadGpus, loadOffers } from '../io/load-catalog.js';
import { paramCounts } from '../core/model/index.js';
import { listModels, resolveModel } from '../io/load-model.js';
import { renderCatalogList, type CatalogKind } from '../ui/plan-catalog.js';

/** A catalog model's parameter counts, from its architecture (what estimate reports). */
function paramsOf(id: string): { params?: number; activeParams?: number } {
  try {
    const p = paramCounts(resolveModel(id));
    return { params: p.total, activeParams: p.active };
  } catch {
    return {};
  }
}

const KINDS = ['gpus', 'models', 'offers', 'circuits'] as const;

export function runCatalog(kind: string, id: string | undefined, json: boolean): number {
  if (!(KINDS as readonly string[]).includes(kind))
    throw badValue('<kind>', kind, `one of ${KINDS.join(', ')}`);
  const k = kind as CatalogKind;
  const entries: { id: string }[] =
    k === 'gpus'
      ? loadGpus()
      : k === 'models'
        ? listModels()
        : k === 'offers'
          ? loadOffers()
          : loadCircuits();
  if (id !== undefined) {
    const key = id.toLowerCase();
    const hit = entries.find(
      (e) => e.id === key || ((e as { aliases?: string[] }).aliases ?? []).includes(key),
    );
    if (!hit)
      throw badValue(`catalog ${kind} <id>`, id, `one of ${entries.map((e) => e.id).join(', ')}`);
    process.stdout.write(`${JSON.stringify(hit, null, 2)}\n`);
    return 0;
  }
  const rows = k === 'models' ? entries.map((e) => ({ ...e, ...paramsOf(e.id) })) : entries;
  process.stdout.write(
    json ? `${JSON.stringify(entries, null, 2)}\n` : `${renderCatalogList(k, rows)}\n`,
  );
  return 0;
}
