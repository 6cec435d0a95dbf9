import { Card, Text } from "@mantine/core";

export function StatCard({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Card withBorder>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Card>
  );
}
