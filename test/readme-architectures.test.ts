// docs/architectures.md lists the supported architectures from the registry, generated, not hand-kept.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withArchitectures } from '../src/core/model/index.js';
import { SUPPORTED_MODEL_TYPES } from '../src/core/model/index.js';

const readme = readFileSync(new URL('../docs/architectures.md', import.meta.url), 'utf8');

describe('docs/architectures.md architecture list', () => {
  it('is up to date (run npx tsx scripts/architectures.ts --write)', () => {
    expect(withArchitectures(readme)).toBe(readme);
  });

  it('names every model_type of the registry', () => {
    for (const t of SUPPORTED_MODEL_TYPES) expect(readme).toContain(`- \`${t}\` (`);
  });
});
