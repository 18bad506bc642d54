/** The scenario's knobs with their values; the selected one can be stepped or typed. */
import { Box, Text } from 'ink';

export interface EditPanelProps {
  readonly knobs: readonly { label: string; value: string }[];
  readonly selected: number;
  readonly typing: boolean;
  readonly draft: string;
  readonly planning: boolean;
}

export function EditPanel({ knobs, selected, typing, draft, planning }: EditPanelProps) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>
        edit scenario (↑↓ knob, ←→ step, Enter type, Esc back){planning ? '  re-planning…' : ''}
      </Text>
      {knobs.map((k, i) => (
        <Text key={k.label} inverse={i === selected}>
          {i === selected ? '❯ ' : '  '}
          {k.label.padEnd(18)}
          {i === selected && typing ? `${draft}▏` : k.value}
        </Text>
      ))}
    </Box>
  );
}
