import { Badge, Button, Group, Select, Stack, Table, TextInput } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiPath } from "../../api/client.js";
import type { AdminOrder, OrderCheck } from "../../api/types.js";
import { fenToMicros, formatYuan } from "../../format/money.js";
import { formatDateTime } from "../../format/time.js";
import { AccountName } from "../AccountName.js";
import { PagedTable } from "../PagedTable.js";
import { QueryState } from "../QueryState.js";
import { useCursorPages } from "../useCursorPages.js";

const STATE_COLORS = { created: "blue", paid: "green", closed: "gray", failed: "red" } as const;
const STATES = ["created", "paid", "closed", "failed"] as const;
const METHODS = ["wechat", "alipay", "code"] as const;

/** Every account's top-up orders, filtered; an unpaid one can be checked at its provider. */
export function OrdersPanel() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const pages = useCursorPages();
  const [state, setState] = useState<string | null>(null);
  const [method, setMethod] = useState<string | null>(null);
  const [account, setAccount] = useState("");
  const [range, setRange] = useState<[string | null, string | null]>([null, null]);
  const filter = {
    state: state ?? "",
    method: method ?? "",
    account: account.trim(),
    from: range[0] ?? "",
    to: range[1] ?? "",
  };
  const orders = useQuery({
    queryKey: ["ops-orders", filter, pages.cursor],
    queryFn: () =>
      api.get<{ orders: AdminOrder[]; nextCursor: string }>(
        apiPath("/api/admin/orders", { ...filter, cursor: pages.cursor }),
      ),
    placeholderData: keepPreviousData,
  });
  const check = useMutation({
    mutationFn: (outTradeNo: string) =>
      api.post<OrderCheck>(`/api/admin/orders/${encodeURIComponent(outTradeNo)}/check`),
    onSuccess: ({ result }) => {
      notifications.show({ color: result === "recorded" ? "green" : "blue", message: t(`ops.checkResult.${result}`) });
      void client.invalidateQueries({ queryKey: ["ops-orders"] });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  const refilter =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      pages.reset();
    };
  return (
    <Stack>
      <Group align="flex-end">
        <Select
          label={t("ops.state")}
          placeholder={t("ops.anyState")}
          clearable
          value={state}
          onChange={refilter(setState)}
          data={STATES.map((value) => ({ value, label: t(`topup.state.${value}`) }))}
          w={160}
        />
        <Select
          label={t("ops.method")}
          placeholder={t("ops.anyMethod")}
          clearable
          value={method}
          onChange={refilter(setMethod)}
          data={METHODS.map((value) => ({ value, label: t(`topup.${value}`) }))}
          w={160}
        />
        <DatePickerInput
          type="range"
          label={t("common.dateRange")}
          value={range}
          onChange={refilter(setRange)}
          valueFormat="YYYY-MM-DD"
          allowSingleDateInRange
          clearable
          miw={220}
        />
        <TextInput
          label={t("ops.account")}
          placeholder={t("admin.id")}
          value={account}
          onChange={(event) => refilter(setAccount)(event.currentTarget.value)}
          w={300}
        />
      </Group>
      <QueryState query={orders}>
        {({ orders: list, nextCursor }) => (
          <PagedTable
            testId="ops-orders"
            minWidth={900}
            pages={pages}
            nextCursor={nextCursor}
            labels={[
              t("topup.order"),
              t("ops.account"),
              t("ops.method"),
              t("topup.amount"),
              t("ops.state"),
              t("topup.createdAt"),
              t("topup.finishedAt"),
              "",
            ]}
            rows={list.map((order) => (
              <Table.Tr key={order.outTradeNo}>
                <Table.Td ff="monospace">{order.outTradeNo}</Table.Td>
                <Table.Td>
                  <AccountName id={order.accountId} name={order.accountName} />
                </Table.Td>
                <Table.Td>{t(`topup.${order.provider}`)}</Table.Td>
                <Table.Td>{formatYuan(fenToMicros(order.amountFen), i18n.language)}</Table.Td>
                <Table.Td>
                  <Badge color={STATE_COLORS[order.state]} variant="light">
                    {t(`topup.state.${order.state}`)}
                  </Badge>
                </Table.Td>
                <Table.Td>{formatDateTime(order.createdAt)}</Table.Td>
                <Table.Td>{formatDateTime(order.finishedAt)}</Table.Td>
                <Table.Td>
                  {order.state === "created" && (
                    <Button
                      size="xs"
                      variant="light"
                      loading={check.isPending && check.variables === order.outTradeNo}
                      onClick={() => check.mutate(order.outTradeNo)}
                    >
                      {t("ops.check")}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          />
        )}
      </QueryState>
    </Stack>
  );
}
