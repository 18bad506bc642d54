/**
 * docs/accuracy.md's generated tables (between its marker comments) are what `npm run docs:accuracy` writes now:
 * the summaries of `validate` and `validate --throughput`, computed in-process by scripts/accuracy-doc.ts. After a
 * change that moves a figure, rewrite them with `npm run docs:accuracy` or
 * `UPDATE_DOCS=1 npx vitest run test/docs/accuracy-doc.test.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  BEGIN,
  DOC,
  END,
  accuracyTables,
  TIME_DOC,
  generatedPart,
  refreshKnownMisses,
  scoredRows,
  spliceGenerated,
} from '../../scripts/accuracy-doc.js';

const update = process.env.UPDATE_DOCS === '1';

describe('docs/accuracy.md generated tables', () => {
  it('hold what npm run docs:accuracy writes now', () => {
    const doc = readFileSync(DOC, 'utf8');
    const tables = accuracyTables();
    if (update) writeFileSync(DOC, spliceGenerated(doc, tables));
    else
      expect(
        generatedPart(doc),
        'docs/accuracy.md is stale: run npm run docs:accuracy (or UPDATE_DOCS=1 npx vitest run test/docs/accuracy-doc.test.ts)',
      ).toBe(tables);
  });

  it("docs/time-model.md's known misses carry each row's current error", () => {
    const doc = readFileSync(TIME_DOC, 'utf8');
    const now = refreshKnownMisses(doc, scoredRows());
    if (update) writeFileSync(TIME_DOC, now);
    else
      expect(
        doc === now,
        'docs/time-model.md "Known misses" is stale: run npm run docs:accuracy',
      ).toBe(true);
  });

  it("docs/time-model.md's known misses list every out-of-sample row 36% or more off, and no other", () => {
    const doc = readFileSync(TIME_DOC, 'utf8');
    const part = doc.slice(
      doc.indexOf('\n## Known misses\n'),
      doc.indexOf('\n## Sections not yet filed'),
    );
    const listed = new Set([...part.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!));
    const far = scoredRows()
      .filter((r) => !r.inSample && Math.abs(r.error) >= 0.36)
      .map((r) => r.id);
    expect(
      far.filter((id) => !listed.has(id)),
      'add these rows to "Known misses", each with what it points to',
    ).toEqual([]);
    const near = [...listed].filter((id) => !far.includes(id));
    expect(near, 'these rows are no longer 36% off: take them out of "Known misses"').toEqual([]);
  });

  it('refreshes only the known-misses rows it scores, and only their error cell', () => {
    const row = { id: 'a', inSample: false, error: -0.4021 } as Parameters<
      typeof refreshKnownMisses
    >[1][number];
    const doc =
      '## X\n\n| `a` | +1.0% | y |\n\n## Known misses\n\n| `a` | +1.0% | why |\n| `b` | +2.0% | z |\n\n## Z\n\n| `a` | +1.0% | w |\n';
    expect(refreshKnownMisses(doc, [row])).toBe(
      '## X\n\n| `a` | +1.0% | y |\n\n## Known misses\n\n| `a` | -40.2% | why |\n| `b` | +2.0% | z |\n\n## Z\n\n| `a` | +1.0% | w |\n',
    );
  });

  it('rewrites only the text between the markers, and reads back what it wrote', () => {
    const doc = `# t\n\nbefore\n\n${BEGIN}\n\nold | table\n\n${END}\n\nafter\n`;
    const out = spliceGenerated(doc, 'new\n\ntable');
    expect(out).toBe(`# t\n\nbefore\n\n${BEGIN}\n\nnew\n\ntable\n\n${END}\n\nafter\n`);
    expect(generatedPart(out)).toBe('new\n\ntable');
    expect(spliceGenerated(out, 'new\n\ntable')).toBe(out);
  });

  it('refuses a page without the markers, with them out of order, or with a marker twice', () => {
    expect(() => spliceGenerated('no markers', 'x')).toThrow(/needs one/);
    expect(() => spliceGenerated(`${END}\n${BEGIN}`, 'x')).toThrow(/needs one/);
    expect(() => spliceGenerated(`${BEGIN}\n${BEGIN}\n${END}`, 'x')).toThrow(/needs one/);
  });
});
