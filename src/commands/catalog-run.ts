/** The catalog command's body. */
import { UserError, badValue } from '../io/errors.js';
import { loadCircuits, loadGpus, loadOffers } from '../io/load-catalog.js';
import { paramCounts } from '../core/model/index.js';
import { listModels, resolveModel, searchModels } from '../io/load-model.js';
import { didYouMean } from '../io/suggest.js';
import { renderCatalogEntry, renderCatalogList, type CatalogKind } from '../ui/plan-catalog.js';

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

type Entry = { id: string; aliases?: string[]; hfId?: string | null };

const namesOf = (e: Entry): string[] =>
  [e.id, e.hfId ?? null, ...(e.aliases ?? [])].filter((n): n is string => typeof n === 'string');

export function runCatalog(kind: string, id: string | undefined, json: boolean): number {
  if (!(KINDS as readonly string[]).includes(kind))
    throw badValue('<kind>', kind, `one of ${KINDS.join(', ')}`);
  const k = kind as CatalogKind;
  const entries: Entry[] =
    k === 'gpus'
      ? loadGpus()
      : k === 'models'
        ? listModels()
        : k === 'offers'
          ? loadOffers()
          : loadCircuits();
  const list = (shown: Entry[]): number => {
    const rows = k === 'models' ? shown.map((e) => ({ ...e, ...paramsOf(e.id) })) : shown;
    process.stdout.write(
      json ? `${JSON.stringify(shown, null, 2)}\n` : `${renderCatalogList(k, rows)}\n`,
    );
    return 0;
  };
  if (id === undefined) return list(entries);
  const key = id.trim().toLowerCase();
  const hit = entries.find((e) => namesOf(e).some((n) => n.toLowerCase() === key));
  if (hit) {
    process.stdout.write(
      json ? `${JSON.stringify(hit, null, 2)}\n` : `${renderCatalogEntry(hit)}\n`,
    );
    return 0;
  }
  if (k === 'models') {
    // `catalog models llama-3`: every model whose id, Hugging Face id or alias contains the text.
    const { hits, near } = searchModels(id);
    if (hits.length > 0) return list(hits);
    throw new UserError(
      `catalog models: no model matches '${id}'${near ? `; ${near}` : ''} (a Hugging Face repo id the catalog does not list also works as --model)`,
    );
  }
  const near = didYouMean(id, entries.flatMap(namesOf));
  throw new UserError(
    `catalog ${kind}: no entry '${id}'; ${near || `see 'vramplan catalog ${kind}' for the ${entries.length} ids`}`,
  );
}
