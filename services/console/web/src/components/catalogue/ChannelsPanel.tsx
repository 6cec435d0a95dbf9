import { Badge, Button, CloseButton, Group, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import type { ChannelEntry } from "../../api/catalogue-types.js";
import { ChannelHealthTable } from "../ChannelHealthTable.js";
import { QueryState } from "../QueryState.js";
import { TableHeader } from "../TableHeader.js";
import { ChannelForm } from "./ChannelForm.js";
import { ChannelTestDialog } from "./ChannelTestDialog.js";
import { ChangeProblems, useCatalogueChange, useIsAdmin, useStoredCatalogue } from "./useCatalogueChange.js";

/** A channel's stored keys, masked; an admin removes one or adds another. */
function ChannelKeys({ name, entry, editable }: { name: string; entry: ChannelEntry; editable: boolean }) {
  const { t } = useTranslation();
  const [key, setKey] = useState("");
  const change = useCatalogueChange(() => setKey(""));
  return (
    <Stack gap={4}>
      {(entry.api_keys ?? []).map((masked) => (
        <Group key={masked} gap={4} wrap="nowrap">
          <Text size="sm" ff="monospace">
            {masked}
          </Text>
          {editable && (
            <CloseButton
              size="sm"
              aria-label={t("catalogueEdit.removeKey", { key: masked })}
              onClick={() => change.mutate({ action: "channel.keys", name, remove: [masked] })}
            />
          )}
        </Group>
      ))}
      {entry.api_key_env && <Text size="sm" c="dimmed">{`$${entry.api_key_env}`}</Text>}
      {editable && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (key.trim()) change.mutate({ action: "channel.keys", name, add: [key.trim()] });
          }}
        >
          <TextInput
            size="xs"
            placeholder={t("catalogueEdit.newKey")}
            aria-label={t("catalogueEdit.newKeyOf", { name })}
            value={key}
            onChange={(event) => setKey(event.currentTarget.value)}
          />
        </form>
      )}
      <ChangeProblems error={change.error} />
    </Stack>
  );
}

/** Channel health as router sees it, then the stored channels an admin edits, tests, disables and enables. */
export function ChannelsPanel() {
  const { t } = useTranslation();
  const isAdmin = useIsAdmin();
  const stored = useStoredCatalogue();
  const [editing, setEditing] = useState<{ name: string; entry: ChannelEntry } | null | undefined>(undefined);
  const [testing, setTesting] = useState<string | null>(null);
  const toggle = useCatalogueChange();
  return (
    <Stack>
      <ChannelHealthTable />
      <Title order={3}>{t("catalogueEdit.storedChannels")}</Title>
      <QueryState query={stored}>
        {({ catalogue }) => {
          const channels = Object.entries(catalogue?.channels ?? {});
          return (
            <>
              {isAdmin && (
                <Group>
                  <Button onClick={() => setEditing(null)}>{t("catalogueEdit.addChannel")}</Button>
                </Group>
              )}
              <ChangeProblems error={toggle.error} />
              <Table.ScrollContainer minWidth={960}>
                <Table striped>
                  <TableHeader
                    labels={[
                      t("channels.name"),
                      t("channels.vendor"),
                      t("channels.keys"),
                      t("channels.models"),
                      t("catalogueEdit.priorityWeight"),
                      t("channels.status"),
                      "",
                    ]}
                  />
                  <Table.Tbody>
                    {channels.map(([name, entry]) => (
                      <Table.Tr key={name}>
                        <Table.Td>{name}</Table.Td>
                        <Table.Td>{entry.vendor}</Table.Td>
                        <Table.Td>
                          <ChannelKeys name={name} entry={entry} editable={isAdmin} />
                        </Table.Td>
                        <Table.Td>
                          <Text size="sm">{entry.models?.join(", ") ?? t("catalogueEdit.vendorModels")}</Text>
                          {Object.entries(entry.model_map ?? {}).map(([from, to]) => (
                            <Text key={from} size="xs" c="dimmed">{`${from} → ${to}`}</Text>
                          ))}
                        </Table.Td>
                        <Table.Td>{`${entry.priority} / ${entry.weight}`}</Table.Td>
                        <Table.Td>
                          {entry.disabled ? (
                            <>
                              <Badge color="gray" variant="light">
                                {t("channels.state.disabled")}
                              </Badge>
                              <Text size="xs" c="dimmed">
                                {entry.disabled_reason}
                              </Text>
                            </>
                          ) : (
                            <Badge color="green" variant="light">
                              {t("catalogueEdit.enabled")}
                            </Badge>
                          )}
                        </Table.Td>
                        <Table.Td>
                          {isAdmin && (
                            <Group gap="xs" wrap="nowrap">
                              <Button size="xs" variant="light" onClick={() => setTesting(name)}>
                                {t("catalogueEdit.test")}
                              </Button>
                              <Button size="xs" variant="default" onClick={() => setEditing({ name, entry })}>
                                {t("catalogueEdit.edit")}
                              </Button>
                              <Button
                                size="xs"
                                variant="light"
                                color={entry.disabled ? "green" : "red"}
                                onClick={() =>
                                  toggle.mutate(
                                    entry.disabled
                                      ? { action: "channel.enable", name }
                                      : { action: "channel.disable", name, reason: t("catalogueEdit.disabledHere") },
                                  )
                                }
                              >
                                {entry.disabled ? t("catalogueEdit.enable") : t("catalogueEdit.disable")}
                              </Button>
                            </Group>
                          )}
                        </Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
              {editing !== undefined && (
                <ChannelForm
                  editing={editing}
                  vendors={Object.keys(catalogue?.vendors ?? {})}
                  onClose={() => setEditing(undefined)}
                />
              )}
            </>
          );
        }}
      </QueryState>
      <ChannelTestDialog channel={testing} onClose={() => setTesting(null)} />
    </Stack>
  );
}
