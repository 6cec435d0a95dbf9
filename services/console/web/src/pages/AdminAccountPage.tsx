import {
  Anchor,
  Badge,
  Button,
  Card,
  Code,
  Group,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { api } from "../api/client.js";
import type { AccountStatus, OperatorAccountView } from "../api/operator-types.js";
import { useSession } from "../api/session.js";
import type { LogSummary, TopUpOrder, UsageRecord } from "../api/types.js";
import { AdjustCreditDialog } from "../components/AdjustCreditDialog.js";
import { AuditLogPanel } from "../components/AuditLogPanel.js";
import { QueryState } from "../components/QueryState.js";
import { RequestTable } from "../components/RequestTable.js";
import { TableHeader } from "../components/TableHeader.js";
import { fenToMicros, formatYuan } from "../format/money.js";
import { formatDateTime } from "../format/time.js";

const CAPTURES = ["default", "full", "metadata", "off"] as const;

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card withBorder>
      <Stack>
        <Title order={3}>{title}</Title>
        {children}
      </Stack>
    </Card>
  );
}

/** A first page of one of the account's lists, read by operators. */
function useAccountList<T>(accountId: string, list: string) {
  return useQuery({
    queryKey: ["operator-account", accountId, list],
    queryFn: () => api.get<T>(`/api/admin/accounts/${encodeURIComponent(accountId)}${list && `/${list}`}`),
  });
}

/** Disable (after confirming) or enable the account. */
function DisableButton({ view }: { view: OperatorAccountView }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const disabled = view.status.disabledAt !== null;
  const change = useMutation({
    mutationFn: () =>
      api.post<AccountStatus>(`/api/admin/accounts/${view.account.id}/${disabled ? "enable" : "disable"}`),
    onSuccess: () => {
      notifications.show({
        color: "green",
        message: t(disabled ? "operators.enabledNotice" : "operators.disabledNotice"),
      });
      setConfirming(false);
      void client.invalidateQueries({ queryKey: ["operator-account", view.account.id] });
      void client.invalidateQueries({ queryKey: ["operator-audit"] });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  if (disabled) {
    return (
      <Button variant="light" onClick={() => change.mutate()} loading={change.isPending}>
        {t("operators.enable")}
      </Button>
    );
  }
  return (
    <>
      <Button color="red" variant="light" onClick={() => setConfirming(true)}>
        {t("operators.disable")}
      </Button>
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={t("operators.disableTitle", { name: view.account.name })}
        closeButtonProps={{ "aria-label": t("common.close") }}
      >
        <Stack>
          <Text>{t("operators.disableBody")}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              {t("common.cancel")}
            </Button>
            <Button color="red" onClick={() => change.mutate()} loading={change.isPending}>
              {t("operators.disable")}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}

/** The account's group and log capture; only an admin changes them. */
function AccountSettings({ view }: { view: OperatorAccountView }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const isAdmin = useSession().data?.role === "admin";
  const save = useMutation({
    mutationFn: ({ path, body }: { path: "group" | "log-capture"; body: unknown; notice: string }) =>
      api.put<AccountStatus>(`/api/admin/accounts/${view.account.id}/${path}`, body),
    onSuccess: (_status, { notice }) => {
      notifications.show({ color: "green", message: notice });
      void client.invalidateQueries({ queryKey: ["operator-account", view.account.id] });
      void client.invalidateQueries({ queryKey: ["operator-audit"] });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  const groups = [...new Set([...view.groups, ...(view.status.group ? [view.status.group] : [])])];
  return (
    <Group align="flex-end">
      <Select
        label={t("operators.group")}
        data={[
          { value: "", label: t("operators.groupNone") },
          ...groups.map((group) => ({ value: group, label: group })),
        ]}
        value={view.status.group ?? ""}
        onChange={(group) =>
          save.mutate({ path: "group", body: { group: group || null }, notice: t("operators.groupSaved") })
        }
        allowDeselect={false}
        disabled={!isAdmin}
      />
      <Select
        label={t("operators.logCapture")}
        data={CAPTURES.map((level) => ({
          value: level,
          label: level === "default" ? t("operators.captureDefault") : t(`settings.captureLevel.${level}`),
        }))}
        value={view.status.logCapture ?? "default"}
        onChange={(level) =>
          level &&
          save.mutate({ path: "log-capture", body: { logCapture: level }, notice: t("operators.captureSaved") })
        }
        allowDeselect={false}
        disabled={!isAdmin}
      />
      {!isAdmin && (
        <Text size="sm" c="dimmed">
          {t("operators.adminOnly")}
        </Text>
      )}
    </Group>
  );
}

/** One account as operators see it: balance, state, sign-ins, keys, top-ups, usage, logs and its audit trail. */
export default function AdminAccountPage() {
  const { t, i18n } = useTranslation();
  const accountId = useParams().accountId ?? "";
  const [adjusting, setAdjusting] = useState(false);
  const view = useAccountList<OperatorAccountView>(accountId, "");
  const topups = useAccountList<{ orders: TopUpOrder[] }>(accountId, "topups");
  const usage = useAccountList<{ records: UsageRecord[] }>(accountId, "usage");
  const logs = useAccountList<{ logs: LogSummary[] }>(accountId, "logs");
  return (
    <Stack>
      <Anchor component={Link} to="/admin" size="sm">
        ← {t("operators.allAccounts")}
      </Anchor>
      <QueryState query={view}>
        {(account) => (
          <Stack>
            <Group justify="space-between">
              <Group>
                <Title order={2}>{account.account.name}</Title>
                <Badge color={account.status.disabledAt ? "red" : "green"} variant="light" data-testid="account-state">
                  {t(account.status.disabledAt ? "operators.state.disabled" : "operators.state.active")}
                </Badge>
              </Group>
              <Group>
                <Button variant="light" onClick={() => setAdjusting(true)}>
                  {t("admin.adjust")}
                </Button>
                <DisableButton view={account} />
              </Group>
            </Group>
            <AdjustCreditDialog account={adjusting ? account.account : null} onClose={() => setAdjusting(false)} />
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <Card withBorder>
                <Text size="sm" c="dimmed">
                  {t("common.balance")}
                </Text>
                <Text size="xl" fw={700} data-testid="operator-balance">
                  {formatYuan(account.account.balanceMicros, i18n.language)}
                </Text>
              </Card>
              <Card withBorder>
                <Text size="sm" c="dimmed">
                  {t("admin.id")}
                </Text>
                <Code>{account.account.id}</Code>
              </Card>
              <Card withBorder>
                <Text size="sm" c="dimmed">
                  {t("keys.created")}
                </Text>
                <Text>{formatDateTime(account.account.createdAt)}</Text>
              </Card>
            </SimpleGrid>
            <AccountSettings view={account} />
            <Section title={t("operators.identities")}>
              <Table.ScrollContainer minWidth={480}>
                <Table striped>
                  <TableHeader
                    labels={[t("operators.signIn"), t("operators.email"), t("keys.name"), t("keys.created")]}
                  />
                  <Table.Tbody>
                    {account.identities.map((identity) => (
                      <Table.Tr key={`${identity.provider}:${identity.subject}`}>
                        <Table.Td ff="monospace">{`${identity.provider}:${identity.subject}`}</Table.Td>
                        <Table.Td>{identity.email}</Table.Td>
                        <Table.Td>{identity.displayName}</Table.Td>
                        <Table.Td>{formatDateTime(identity.createdAt)}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Section>
            <Section title={t("operators.keys")}>
              <Table.ScrollContainer minWidth={640}>
                <Table striped>
                  <TableHeader
                    labels={[
                      t("keys.name"),
                      t("keys.prefix"),
                      t("keys.group"),
                      t("common.status"),
                      t("keys.spent"),
                      t("keys.lastUsed"),
                    ]}
                  />
                  <Table.Tbody>
                    {account.keys.map((key) => (
                      <Table.Tr key={key.id}>
                        <Table.Td>{key.name}</Table.Td>
                        <Table.Td ff="monospace">{key.prefix}</Table.Td>
                        <Table.Td>{key.group}</Table.Td>
                        <Table.Td>{t(`keys.status.${key.status}`)}</Table.Td>
                        <Table.Td>{formatYuan(key.spentMicros, i18n.language)}</Table.Td>
                        <Table.Td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : t("common.never")}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              </Table.ScrollContainer>
            </Section>
          </Stack>
        )}
      </QueryState>
      <Section title={t("operators.topups")}>
        <QueryState query={topups}>
          {({ orders }) => (
            <Table.ScrollContainer minWidth={560}>
              <Table striped>
                <TableHeader
                  labels={[
                    t("topup.order"),
                    t("topup.method"),
                    t("topup.amount"),
                    t("common.status"),
                    t("topup.createdAt"),
                  ]}
                />
                <Table.Tbody>
                  {orders.map((order) => (
                    <Table.Tr key={order.outTradeNo}>
                      <Table.Td ff="monospace">{order.outTradeNo}</Table.Td>
                      <Table.Td>{t(`topup.${order.provider}`)}</Table.Td>
                      <Table.Td>{formatYuan(fenToMicros(order.amountFen), i18n.language)}</Table.Td>
                      <Table.Td>{t(`topup.state.${order.state}`)}</Table.Td>
                      <Table.Td>{formatDateTime(order.createdAt)}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </QueryState>
      </Section>
      <Section title={t("operators.usage")}>
        <QueryState query={usage}>
          {({ records }) => <RequestTable rows={records} withTokens linked={false} />}
        </QueryState>
      </Section>
      <Section title={t("operators.logs")}>
        <QueryState query={logs}>{({ logs: list }) => <RequestTable rows={list} linked={false} />}</QueryState>
      </Section>
      <Section title={t("operators.audit")}>
        <AuditLogPanel accountId={accountId} />
      </Section>
    </Stack>
  );
}
