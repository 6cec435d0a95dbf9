import { Button, Code, Modal, NumberInput, Stack, Table, Tabs, Text, Textarea, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiPath } from "../api/client.js";
import type { Account, AdminAccountPage } from "../api/types.js";
import { CatalogueView } from "../components/CatalogueView.js";
import { ChannelHealthTable } from "../components/ChannelHealthTable.js";
import { CursorPager } from "../components/CursorPager.js";
import { FormActions } from "../components/FormActions.js";
import { QueryState } from "../components/QueryState.js";
import { TableHeader } from "../components/TableHeader.js";
import { useCursorPages } from "../components/useCursorPages.js";
import { formatYuan, yuanToMicros } from "../format/money.js";
import { formatDateTime } from "../format/time.js";

function AdjustCredit({ account, onClose }: { account: Account | null; onClose: () => void }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  // One key per opened dialog: a retried or double-clicked submit credits once.
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const form = useForm<{ yuan: number | string; reason: string }>({
    initialValues: { yuan: "", reason: "" },
    validate: {
      yuan: (yuan) => (typeof yuan === "number" && yuanToMicros(yuan) !== 0 ? null : t("admin.amountInvalid")),
      reason: (reason) => (reason.trim() ? null : t("admin.reasonRequired")),
    },
  });
  const adjust = useMutation({
    mutationFn: ({ id, ...credit }: { id: string; amountMicros: number; reason: string; idempotencyKey: string }) =>
      api.post<{ balanceMicros: number }>(`/api/admin/accounts/${encodeURIComponent(id)}/credit`, credit),
    onSuccess: ({ balanceMicros }) => {
      notifications.show({
        color: "green",
        message: t("admin.adjusted", { balance: formatYuan(balanceMicros, i18n.language) }),
      });
      void client.invalidateQueries({ queryKey: ["admin-accounts"] });
      form.reset();
      onClose();
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={account !== null}
      onClose={onClose}
      title={t("admin.adjustTitle", { name: account?.name ?? "" })}
    >
      <form
        onSubmit={form.onSubmit(({ yuan, reason }) =>
          adjust.mutate({
            id: account!.id,
            amountMicros: yuanToMicros(Number(yuan)),
            reason: reason.trim(),
            idempotencyKey,
          }),
        )}
      >
        <Stack>
          <NumberInput label={t("admin.amount")} decimalScale={6} withAsterisk {...form.getInputProps("yuan")} />
          <Textarea label={t("admin.reason")} withAsterisk autosize minRows={2} {...form.getInputProps("reason")} />
          <FormActions submit={t("admin.adjust")} pending={adjust.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}

function AccountsPanel() {
  const { t, i18n } = useTranslation();
  const [search, setSearch] = useState("");
  const [query] = useDebouncedValue(search, 300);
  const pages = useCursorPages();
  const [adjusting, setAdjusting] = useState<Account | null>(null);
  const accounts = useQuery({
    queryKey: ["admin-accounts", query, pages.cursor],
    queryFn: () => api.get<AdminAccountPage>(apiPath("/api/admin/accounts", { query, cursor: pages.cursor })),
    placeholderData: keepPreviousData,
  });
  return (
    <Stack>
      <TextInput
        label={t("common.search")}
        placeholder={t("admin.query")}
        value={search}
        onChange={(event) => {
          setSearch(event.currentTarget.value);
          pages.reset();
        }}
        maw={360}
      />
      <AdjustCredit key={adjusting?.id ?? ""} account={adjusting} onClose={() => setAdjusting(null)} />
      <QueryState query={accounts}>
        {({ accounts: list, nextCursor }) => (
          <>
            <Table.ScrollContainer minWidth={640}>
              <Table striped highlightOnHover>
                <TableHeader labels={[t("admin.id"), t("keys.name"), t("common.balance"), t("keys.created"), ""]} />
                <Table.Tbody>
                  {list.map((account) => (
                    <Table.Tr key={account.id}>
                      <Table.Td>
                        <Code>{account.id}</Code>
                      </Table.Td>
                      <Table.Td>{account.name}</Table.Td>
                      <Table.Td>{formatYuan(account.balanceMicros, i18n.language)}</Table.Td>
                      <Table.Td>{formatDateTime(account.createdAt)}</Table.Td>
                      <Table.Td>
                        <Button size="xs" variant="light" onClick={() => setAdjusting(account)}>
                          {t("admin.adjust")}
                        </Button>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
            {list.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
            <CursorPager pages={pages} nextCursor={nextCursor} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}

export default function AdminPage() {
  const { t } = useTranslation();
  // Panels mount when first opened: the router's views are fetched only for an admin who looks.
  return (
    <Stack>
      <Title order={2}>{t("admin.pageTitle")}</Title>
      <Tabs defaultValue="accounts" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="accounts">{t("admin.title")}</Tabs.Tab>
          <Tabs.Tab value="channels">{t("channels.title")}</Tabs.Tab>
          <Tabs.Tab value="catalogue">{t("catalogue.title")}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="accounts" pt="md">
          <AccountsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="channels" pt="md">
          <ChannelHealthTable />
        </Tabs.Panel>
        <Tabs.Panel value="catalogue" pt="md">
          <CatalogueView />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
