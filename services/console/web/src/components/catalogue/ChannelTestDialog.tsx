import { Badge, Modal, Stack, Table, Text } from "@mantine/core";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { ChannelTestReport } from "../../api/catalogue-types.js";
import { api } from "../../api/client.js";
import { QueryState } from "../QueryState.js";
import { TableHeader } from "../TableHeader.js";

/** Router's TestChannel: one minimal vendor call per key, each key's latency and the vendor's answer. */
export function ChannelTestDialog({ channel, onClose }: { channel: string | null; onClose: () => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const report = useQuery({
    queryKey: ["channel-test", channel],
    queryFn: async () => {
      const tested = await api.post<ChannelTestReport>(`/api/admin/channels/${encodeURIComponent(channel!)}/test`, {});
      // The test's verdict is in the channel's health now.
      void client.invalidateQueries({ queryKey: ["admin-channels"] });
      return tested;
    },
    enabled: channel !== null,
    // Each opening calls the vendor again.
    gcTime: 0,
    retry: false,
  });
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={channel !== null}
      onClose={onClose}
      title={t("catalogueEdit.testTitle", { name: channel ?? "" })}
      size="xl"
    >
      <QueryState query={report}>
        {({ model, upstreamModel, keys }) => (
          <Stack>
            <Text size="sm">{t("catalogueEdit.testedModel", { model, upstream: upstreamModel })}</Text>
            <Table>
              <TableHeader
                labels={[
                  t("channels.keys"),
                  t("catalogueEdit.result"),
                  t("catalogueEdit.latency"),
                  t("catalogueEdit.answer"),
                ]}
              />
              <Table.Tbody>
                {keys.map((key) => (
                  <Table.Tr key={key.keyId}>
                    <Table.Td ff="monospace">{key.maskedKey}</Table.Td>
                    <Table.Td>
                      <Badge color={key.ok ? "green" : "red"} variant="light">
                        {key.ok ? t("catalogueEdit.keyOk") : key.refusal || String(key.status || "—")}
                      </Badge>
                    </Table.Td>
                    <Table.Td>{t("catalogueEdit.ms", { ms: key.latencyMs })}</Table.Td>
                    <Table.Td>
                      <Text size="sm" lineClamp={3}>
                        {key.answer}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        )}
      </QueryState>
    </Modal>
  );
}
