/** Every key (from KEY_HELP): the lines that fit, scrolled by the state (never taller than the screen). */
import { Box, Text } from 'ink';

export interface HelpOverlayProps {
  readonly title: string;
  readonly lines: readonly { text: string; bold: boolean }[];
}

export function HelpOverlay({ title, lines }: HelpOverlayProps) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold wrap="truncate">
        {title}
      </Text>
      {lines.map((l, i) => (
        <Text key={i} bold={l.bold} wrap="truncate">
          {l.text}
        </Text>
      ))}
    </Box>
  );
}
