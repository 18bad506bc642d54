/**
 * docs/architectures.md's list of supported architectures, generated from the handler registry (hf-config.ts), between
 * two markers; `npx tsx scripts/architectures.ts --write` rewrites it and a test fails when it is stale.
 */
import { SUPPORTED_ARCHITECTURES } from './hf-config.js';

export const ARCH_START = '<!-- architectures:start (npx tsx scripts/architectures.ts --write) -->';
export const ARCH_END = '<!-- architectures:end -->';

/** The block's body: one line per model_type with its transformers class, in registry order. */
export function architecturesBlock(): string {
  const rows = SUPPORTED_ARCHITECTURES.map((a) => `- \`${a.modelType}\` (\`${a.architecture}\`)`);
  return [
    `${SUPPORTED_ARCHITECTURES.length} \`model_type\` values are read (any other with the standard fields is read as the closest layout, with a warning):`,
    '',
    ...rows,
  ].join('\n');
}

/** `readme` with its marked block replaced by the current list; throws when the markers are missing. */
export function withArchitectures(readme: string): string {
  const start = readme.indexOf(ARCH_START);
  const end = readme.indexOf(ARCH_END);
  if (start < 0 || end < start)
    throw new Error(`docs/architectures.md: markers ${ARCH_START} … ${ARCH_END} not found`);
  return `${readme.slice(0, start + ARCH_START.length)}\n${architecturesBlock()}\n${readme.slice(end)}`;
}
