// The explorer drawn at a terminal size, after some keys: the frame as plain text (shared by the size tests).
import { render } from 'ink-testing-library';
import { Explorer } from '../../src/ui/tui/Explorer.js';
import { fakeResult, scenario } from './fixtures.js';

export const strip = (s: string | undefined): string =>
  // eslint-disable-next-line no-control-regex
  (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/ +$/gm, '');
export const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

export async function frameAt(width: number, height: number, keys: string[] = []): Promise<string> {
  const ui = render(
    <Explorer
      file="t.yaml"
      scenario={scenario}
      result={fakeResult(40)}
      width={width}
      height={height}
      replan={() => fakeResult(3)}
      exportTo={() => 'unused'}
    />,
  );
  await tick();
  for (const k of keys) {
    ui.stdin.write(k);
    await tick();
  }
  const frame = strip(ui.lastFrame());
  ui.unmount();
  return frame;
}
