/** The compare command's body: plan each scenario, print their best plans side by side. */
import { badValue } from '../io/errors.js';
import { planJson } from '../ui/plan-json.js';
import { renderCompareText } from '../ui/plan-compare.js';
import { planScenario } from './plan-run.js';
import { parseTop } from './top.js';
import { wantsTui } from './explore.js';

export async function runCompare(files: string[], opts: Record<string, unknown>): Promise<number> {
  if (files.length < 2)
    throw badValue('<scenarios...>', files.join(' '), 'two or more scenario files');
  const top = opts.top === undefined ? 3 : parseTop(opts.top);
  const results = [];
  for (const file of files) results.push({ file, result: await planScenario(file, { top }) });
  if (wantsTui(opts)) return (await import('./tui.js')).runCompareTui(results);
  if (opts.json === true)
    process.stdout.write(
      `${JSON.stringify({ scenarios: results.map((r) => ({ file: r.file, result: planJson(r.result) })) }, null, 2)}\n`,
    );
  else process.stdout.write(`${renderCompareText(results, top)}\n`);
  return results.some((r) => r.result.fits) ? 0 : 2;
}
