/** A one-line text prompt (search, export path). */
import { Text } from 'ink';

export interface PromptProps {
  readonly label: string;
  readonly draft: string;
  readonly hint: string;
}

export function Prompt({ label, draft, hint }: PromptProps) {
  return (
    <Text wrap="truncate">
      <Text bold>{label}</Text> {draft}▏ <Text dimColor>{hint}</Text>
    </Text>
  );
}
