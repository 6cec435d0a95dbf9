import { Alert, Badge, Button, Card, Code, Group, Modal, NumberInput, Stack, Table, TextInput } from "@mantine/core";
import { DatePickerInput } from "@mantine/dates";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiPath } from "../../api/client.js";
import type { CodeBatch, CreatedCodeBatch, PrepaidCode } from "../../api/types.js";
import { formatYuan, yuanToFen } from "../../format/money.js";
import { formatDateTime } from "../../format/time.js";
import { PagedTable } from "../PagedTable.js";
import { QueryState } from "../QueryState.js";
import { TableHeader } from "../TableHeader.js";
import { useCursorPages } from "../useCursorPages.js";

const CODE_COLORS = { unused: "blue", redeemed: "green", revoked: "gray", expired: "orange" } as const;

function download(filename: string, text: string) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  link.download = filename;
  link.click();
  URL.revokeObjectURL(link.href);
}

/** A batch just made: its clear codes, shown this once, with their CSV. */
function CreatedCodes({ created, onClose }: { created: CreatedCodeBatch | null; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={created !== null}
      onClose={onClose}
      title={t("ops.created", { count: created?.codes.length ?? 0 })}
      closeButtonProps={{ "aria-label": t("common.close") }}
      size="lg"
    >
      <Stack>
        <Alert color="yellow">{t("ops.shownOnce")}</Alert>
        <Stack gap={4} data-testid="created-codes">
          {created?.codes.map((code) => (
            <Code key={code}>{code}</Code>
          ))}
        </Stack>
        <Button onClick={() => created && download(`codes-${created.batch.batchId}.csv`, created.csv)}>
          {t("ops.downloadCsv")}
        </Button>
      </Stack>
    </Modal>
  );
}

function NewBatchForm({ onCreated }: { onCreated: (created: CreatedCodeBatch) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const form = useForm<{ yuan: number | string; count: number | string; expires: string | null; note: string }>({
    initialValues: { yuan: 10, count: 10, expires: null, note: "" },
    validate: {
      yuan: (yuan) => ((yuanToFen(Number(yuan)) ?? 0) >= 100 ? null : t("topup.amountInvalid")),
      count: (count) =>
        Number.isInteger(Number(count)) && Number(count) >= 1 && Number(count) <= 1000 ? null : t("ops.countInvalid"),
    },
  });
  const create = useMutation({
    mutationFn: (body: { amountFen: number; count: number; expiresAt?: string; note: string }) =>
      api.post<CreatedCodeBatch>("/api/admin/codes", body),
    onSuccess: (created) => {
      void client.invalidateQueries({ queryKey: ["ops-batches"] });
      form.reset();
      onCreated(created);
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <Card withBorder>
      <form
        onSubmit={form.onSubmit(({ yuan, count, expires, note }) =>
          create.mutate({
            amountFen: yuanToFen(Number(yuan))!,
            count: Number(count),
            // Good through the chosen UTC day.
            ...(expires && { expiresAt: `${expires}T23:59:59.999Z` }),
            note,
          }),
        )}
      >
        <Group align="flex-end">
          <NumberInput
            label={t("ops.amount")}
            min={1}
            decimalScale={2}
            prefix="¥"
            w={180}
            {...form.getInputProps("yuan")}
          />
          <NumberInput label={t("ops.count")} min={1} max={1000} w={140} {...form.getInputProps("count")} />
          <DatePickerInput
            label={t("ops.expires")}
            valueFormat="YYYY-MM-DD"
            clearable
            w={180}
            {...form.getInputProps("expires")}
          />
          <TextInput label={t("ops.note")} w={240} {...form.getInputProps("note")} />
          <Button type="submit" loading={create.isPending}>
            {t("ops.create")}
          </Button>
        </Group>
      </form>
    </Card>
  );
}

function BatchCodes({ batch, onClose }: { batch: CodeBatch | null; onClose: () => void }) {
  const { t } = useTranslation();
  const codes = useQuery({
    queryKey: ["ops-batch", batch?.batchId],
    queryFn: () => api.get<{ codes: PrepaidCode[] }>(`/api/admin/codes/${encodeURIComponent(batch!.batchId)}`),
    enabled: batch !== null,
  });
  return (
    <Modal
      opened={batch !== null}
      onClose={onClose}
      title={`${t("ops.batch")} ${batch?.batchId ?? ""}`}
      size="xl"
      closeButtonProps={{ "aria-label": t("common.close") }}
    >
      <QueryState query={codes}>
        {({ codes: list }) => (
          <Table striped>
            <TableHeader
              labels={[t("ops.prefix"), t("ops.state"), t("ops.redeemedBy"), t("topup.finishedAt"), t("topup.order")]}
            />
            <Table.Tbody>
              {list.map((code) => (
                <Table.Tr key={code.codeId}>
                  <Table.Td ff="monospace">{code.codePrefix}…</Table.Td>
                  <Table.Td>
                    <Badge color={CODE_COLORS[code.state]} variant="light">
                      {t(`ops.codeState.${code.state}`)}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{code.redeemedBy && <Code>{code.redeemedBy}</Code>}</Table.Td>
                  <Table.Td>{formatDateTime(code.redeemedAt ?? code.revokedAt)}</Table.Td>
                  <Table.Td ff="monospace">{code.outTradeNo}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </QueryState>
    </Modal>
  );
}

/** Batches of prepaid codes: make one, see what became of its codes, export or revoke the unused. */
export function CodesPanel() {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const pages = useCursorPages();
  const [created, setCreated] = useState<CreatedCodeBatch | null>(null);
  const [viewing, setViewing] = useState<CodeBatch | null>(null);
  const batches = useQuery({
    queryKey: ["ops-batches", pages.cursor],
    queryFn: () =>
      api.get<{ batches: CodeBatch[]; nextCursor: string }>(apiPath("/api/admin/codes", { cursor: pages.cursor })),
    placeholderData: keepPreviousData,
  });
  const revoke = useMutation({
    mutationFn: (batchId: string) =>
      api.post<{ revokedCodeIds: string[] }>("/api/admin/codes/revoke", { target: batchId }),
    onSuccess: ({ revokedCodeIds }) => {
      notifications.show({ message: t("ops.revoked", { count: revokedCodeIds.length }) });
      void client.invalidateQueries({ queryKey: ["ops-batches"] });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <Stack>
      <NewBatchForm onCreated={setCreated} />
      <CreatedCodes created={created} onClose={() => setCreated(null)} />
      <BatchCodes batch={viewing} onClose={() => setViewing(null)} />
      <QueryState query={batches}>
        {({ batches: list, nextCursor }) => (
          <PagedTable
            testId="ops-batches"
            minWidth={900}
            pages={pages}
            nextCursor={nextCursor}
            labels={[
              t("keys.created"),
              t("topup.amount"),
              t("ops.count"),
              t("ops.redeemedCount"),
              t("ops.revokedCount"),
              t("ops.expires"),
              t("ops.note"),
              "",
            ]}
            rows={list.map((batch) => (
              <Table.Tr key={batch.batchId}>
                <Table.Td>{formatDateTime(batch.createdAt)}</Table.Td>
                <Table.Td>{formatYuan(batch.amountMicros, i18n.language)}</Table.Td>
                <Table.Td>{batch.count}</Table.Td>
                <Table.Td>{batch.redeemed}</Table.Td>
                <Table.Td>{batch.revoked}</Table.Td>
                <Table.Td>{formatDateTime(batch.expiresAt, t("common.noExpiry"))}</Table.Td>
                <Table.Td>{batch.note}</Table.Td>
                <Table.Td>
                  <Group gap="xs" wrap="nowrap">
                    <Button size="xs" variant="light" onClick={() => setViewing(batch)}>
                      {t("ops.view")}
                    </Button>
                    <Button
                      size="xs"
                      variant="default"
                      component="a"
                      href={`/api/admin/codes/${encodeURIComponent(batch.batchId)}/csv`}
                    >
                      {t("ops.exportCsv")}
                    </Button>
                    <Button
                      size="xs"
                      variant="light"
                      color="red"
                      disabled={batch.redeemed + batch.revoked >= batch.count}
                      onClick={() => revoke.mutate(batch.batchId)}
                    >
                      {t("ops.revokeUnused")}
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          />
        )}
      </QueryState>
    </Stack>
  );
}
