/** Every key, grouped (from KEY_HELP). */
import { Box, Text } from 'ink';

export interface HelpOverlayProps {
  readonly sections: readonly (readonly [string, readonly (readonly [string, string])[]])[];
}

export function HelpOverlay({ sections }: HelpOverlayProps) {
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1}>
      <Text bold>keys (? or Esc closes)</Text>
      {sections.map(([title, keys]) => (
        <Box key={title} flexDirection="column">
          <Text bold>{title}</Text>
          {keys.map(([k, what]) => (
            <Text key={k}>
              {'  '}
              {k.padEnd(18)}
              {what}
            </Text>
          ))}
        </Box>
      ))}
    </Box>
  );
}
