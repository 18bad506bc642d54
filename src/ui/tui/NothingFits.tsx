/** The explorer's screen when no candidate is feasible: why, and the nearest single fixes (as `plan` prints). */
import { Box, Text } from 'ink';

export interface NothingFitsProps {
  readonly headline: string;
  readonly fixes: readonly string[];
  readonly pruned: readonly string[];
}

export function NothingFits({ headline, fixes, pruned }: NothingFitsProps) {
  return (
    <Box flexDirection="column" borderStyle="single" paddingX={1}>
      <Text bold color="red" wrap="truncate">
        {headline}
      </Text>
      <Text bold>nearest fixes (one change each)</Text>
      {fixes.map((f, i) => (
        <Text key={`f${i}`} wrap="truncate">
          {`- ${f}`}
        </Text>
      ))}
      <Text bold>pruned</Text>
      {pruned.map((p, i) => (
        <Text key={`p${i}`} wrap="truncate">
          {p}
        </Text>
      ))}
      <Text dimColor wrap="truncate">
        i edits the scenario (re-plans live) · q quits (exit 2, as plan does)
      </Text>
    </Box>
  );
}
