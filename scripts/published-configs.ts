/**
 * The published configurations of test/fixtures/published/cases.json, estimated: one line per case (the
 * peak per GPU and fit, or the refusal). `--json` prints the outcomes; `--md` a table for docs/engines.md.
 *
 *   npx tsx scripts/published-configs.ts [--json | --md] [--table cases-pasted.json]
 */
import { publishedCases, runPublished } from '../test/helpers/published-configs.js';

const argv = process.argv.slice(2);
const table = argv.includes('--table') ? argv[argv.indexOf('--table') + 1] : undefined;
const cases = publishedCases(table);
const outcomes = cases.map((c) => ({ c, o: runPublished(c) }));
const outcomeText = (o: ReturnType<typeof runPublished>): string =>
  o.refusal === null
    ? `${o.deviceGiB!.toFixed(1)} GiB/GPU${o.fits === false ? ' (does not fit)' : ''}`
    : `refused: ${o.refusal}`;
if (argv.includes('--json'))
  console.log(
    JSON.stringify(
      outcomes.map((x) => x.o),
      null,
      2,
    ),
  );
else
  for (const { c, o } of outcomes)
    console.log(
      argv.includes('--md')
        ? `| ${c.id} | ${c.source} | ${outcomeText(o)} |`
        : `${c.id}\t${outcomeText(o)}`,
    );
const refused = outcomes.filter((x) => x.o.refusal !== null).length;
console.error(`${refused} refused of ${cases.length}`);
