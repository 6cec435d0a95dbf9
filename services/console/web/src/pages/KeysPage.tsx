import {
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  NumberInput,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { DateTimePicker } from "@mantine/dates";
import { useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { modals } from "@mantine/modals";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import dayjs from "dayjs";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.js";
import type { ApiKey, Group as ModelGroup, NewKey } from "../api/types.js";
import { FormActions } from "../components/FormActions.js";
import { QueryState } from "../components/QueryState.js";
import { keysQuery } from "../components/RecordFiltersBar.js";
import { TableHeader } from "../components/TableHeader.js";
import { formatYuan, yuanToMicros } from "../format/money.js";
import { formatDateTime } from "../format/time.js";

const STATUS_COLORS = { active: "green", revoked: "gray", expired: "yellow" } as const;

interface KeyForm {
  name: string;
  group: string;
  expiresAt: string | null;
  spendCapYuan: number | string;
}

function newKeyOf(values: KeyForm): NewKey {
  const key: NewKey = { name: values.name.trim(), group: values.group };
  if (values.expiresAt) key.expiresAt = dayjs(values.expiresAt).toISOString();
  if (typeof values.spendCapYuan === "number") key.spendCapMicros = yuanToMicros(values.spendCapYuan);
  return key;
}

function CreateKeyModal({
  opened,
  onClose,
  onCreated,
}: {
  opened: boolean;
  onClose: () => void;
  onCreated: (apiKey: string) => void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const groups = useQuery({ queryKey: ["groups"], queryFn: () => api.get<{ groups: ModelGroup[] }>("/api/groups") });
  const form = useForm<KeyForm>({
    initialValues: { name: "", group: "", expiresAt: null, spendCapYuan: "" },
    validate: {
      name: (name) => (name.trim() ? null : t("keys.nameRequired")),
      group: (group) => (group ? null : t("keys.groupRequired")),
    },
  });
  const create = useMutation({
    mutationFn: (key: NewKey) => api.post<{ key: ApiKey; apiKey: string }>("/api/keys", key),
    onSuccess: ({ apiKey }) => {
      void client.invalidateQueries({ queryKey: keysQuery.queryKey });
      form.reset();
      onCreated(apiKey);
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={opened}
      onClose={onClose}
      title={t("keys.create")}
    >
      <form onSubmit={form.onSubmit((values) => create.mutate(newKeyOf(values)))}>
        <Stack>
          <TextInput label={t("keys.name")} withAsterisk data-autofocus {...form.getInputProps("name")} />
          <Select
            label={t("keys.group")}
            withAsterisk
            data={(groups.data?.groups ?? []).map((group) => ({
              value: group.name,
              label: group.description ? `${group.name} — ${group.description}` : group.name,
            }))}
            {...form.getInputProps("group")}
          />
          <DateTimePicker
            label={t("keys.expiresAt")}
            description={t("keys.expiresHint")}
            clearable
            minDate={dayjs().format("YYYY-MM-DD")}
            {...form.getInputProps("expiresAt")}
          />
          <NumberInput
            label={t("keys.spendCap")}
            description={t("keys.spendCapHint")}
            min={0.01}
            decimalScale={2}
            {...form.getInputProps("spendCapYuan")}
          />
          <FormActions submit={t("keys.create")} pending={create.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}

function ShownOnce({ apiKey, onClose }: { apiKey: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={apiKey !== null}
      onClose={onClose}
      title={t("keys.createdTitle")}
      closeOnClickOutside={false}
    >
      <Stack>
        <Text size="sm">{t("keys.createdBody")}</Text>
        <Code block data-testid="new-api-key" style={{ overflowWrap: "anywhere", whiteSpace: "pre-wrap" }}>
          {apiKey}
        </Code>
        <Group justify="flex-end">
          <CopyButton value={apiKey ?? ""}>
            {({ copied, copy }) => (
              <Button color={copied ? "teal" : undefined} onClick={copy}>
                {copied ? t("common.copied") : t("common.copy")}
              </Button>
            )}
          </CopyButton>
          <Button variant="default" onClick={onClose}>
            {t("keys.done")}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function KeyRow({ apiKey, onRevoke }: { apiKey: ApiKey; onRevoke: (key: ApiKey) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <Table.Tr>
      <Table.Td>{apiKey.name}</Table.Td>
      <Table.Td>
        <Code>{apiKey.prefix}…</Code>
      </Table.Td>
      <Table.Td>{apiKey.group}</Table.Td>
      <Table.Td>{formatDateTime(apiKey.createdAt)}</Table.Td>
      <Table.Td>{formatDateTime(apiKey.lastUsedAt, t("common.never"))}</Table.Td>
      <Table.Td>{formatDateTime(apiKey.expiresAt, t("common.noExpiry"))}</Table.Td>
      <Table.Td>
        {formatYuan(apiKey.spentMicros, i18n.language)}
        {apiKey.spendCapMicros !== null && ` / ${formatYuan(apiKey.spendCapMicros, i18n.language)}`}
      </Table.Td>
      <Table.Td>
        <Badge color={STATUS_COLORS[apiKey.status]} variant="light">
          {t(`keys.status.${apiKey.status}`)}
        </Badge>
      </Table.Td>
      <Table.Td>
        {apiKey.status === "active" && (
          <Button size="xs" color="red" variant="light" onClick={() => onRevoke(apiKey)}>
            {t("keys.revoke")}
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

export default function KeysPage() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const keys = useQuery(keysQuery);
  const [creating, { open, close }] = useDisclosure();
  const [shown, setShown] = useState<string | null>(null);
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete<{ key: ApiKey }>(`/api/keys/${encodeURIComponent(id)}`),
    onSuccess: () => {
      notifications.show({ color: "green", message: t("keys.revoked") });
      void client.invalidateQueries({ queryKey: keysQuery.queryKey });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  const confirmRevoke = (key: ApiKey) =>
    modals.openConfirmModal({
      title: t("keys.revokeTitle", { name: key.name }),
      children: <Text size="sm">{t("keys.revokeBody")}</Text>,
      labels: { confirm: t("keys.revoke"), cancel: t("common.cancel") },
      confirmProps: { color: "red" },
      closeButtonProps: { "aria-label": t("common.close") },
      onConfirm: () => revoke.mutate(key.id),
    });
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("keys.title")}</Title>
        <Button onClick={open}>{t("keys.create")}</Button>
      </Group>
      <CreateKeyModal
        opened={creating}
        onClose={close}
        onCreated={(apiKey) => {
          close();
          setShown(apiKey);
        }}
      />
      <ShownOnce apiKey={shown} onClose={() => setShown(null)} />
      <QueryState query={keys}>
        {({ keys: list }) => (
          <Table.ScrollContainer minWidth={900}>
            <Table striped highlightOnHover>
              <TableHeader
                labels={[
                  t("keys.name"),
                  t("keys.prefix"),
                  t("keys.group"),
                  t("keys.created"),
                  t("keys.lastUsed"),
                  t("keys.expiresAt"),
                  t("keys.spent"),
                  t("common.status"),
                  "",
                ]}
              />
              <Table.Tbody>
                {list.map((key) => (
                  <KeyRow key={key.id} apiKey={key} onRevoke={confirmRevoke} />
                ))}
              </Table.Tbody>
            </Table>
            {list.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
          </Table.ScrollContainer>
        )}
      </QueryState>
    </Stack>
  );
}
