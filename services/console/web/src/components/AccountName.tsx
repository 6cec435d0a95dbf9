import { Anchor, Code, Group } from "@mantine/core";
import { Link } from "react-router";

/**
 * An account as operators read it in lists: its name, linked to its page, and the start of its
 * id, which is what tells two accounts of the same name (every demo is "demo") apart.
 */
export function AccountName({ id, name }: { id: string; name: string | null | undefined }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Anchor component={Link} to={`/admin/accounts/${id}`} size="sm">
        {name || id}
      </Anchor>
      {name && <Code title={id}>{id.slice(0, 8)}</Code>}
    </Group>
  );
}
