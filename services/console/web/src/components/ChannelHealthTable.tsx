import { Badge, Table, Text } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.js";
import type { ChannelHealth } from "../api/types.js";
import { QueryState } from "./QueryState.js";
import { TableHeader } from "./TableHeader.js";

const statusColors: Record<ChannelHealth["status"], string> = {
  closed: "green",
  failing: "orange",
  half_open: "yellow",
  open: "red",
  disabled: "gray",
  keys_refused: "red",
};

/** Every channel with its circuit and refused keys, as the router that answered sees it; refreshed every 10 s. */
export function ChannelHealthTable() {
  const { t } = useTranslation();
  const channels = useQuery({
    queryKey: ["admin-channels"],
    queryFn: () => api.get<{ channels: ChannelHealth[] }>("/api/admin/channels"),
    refetchInterval: 10_000,
  });
  return (
    <QueryState query={channels}>
      {({ channels: list }) => (
        <>
          <Text c="dimmed" size="sm">
            {t("channels.oneRouter")}
          </Text>
          <Table.ScrollContainer minWidth={640}>
            <Table striped highlightOnHover>
              <TableHeader
                labels={[
                  t("channels.name"),
                  t("channels.vendor"),
                  t("channels.models"),
                  t("channels.status"),
                  t("channels.keys"),
                  t("channels.failures"),
                ]}
              />
              <Table.Tbody>
                {list.map((channel) => (
                  <Table.Tr key={channel.name}>
                    <Table.Td>{channel.name}</Table.Td>
                    <Table.Td>{channel.vendor}</Table.Td>
                    <Table.Td>{channel.models}</Table.Td>
                    <Table.Td>
                      <Badge color={statusColors[channel.status]} variant="light">
                        {t(`channels.state.${channel.status}`)}
                      </Badge>
                      {channel.simulated && (
                        <Badge ml="xs" color="blue" variant="outline">
                          {t("channels.simulated")}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      {t("channels.keysEnabled", {
                        enabled: channel.keys.filter((key) => !key.disabled).length,
                        total: channel.keys.length,
                      })}
                      {channel.keys
                        .filter((key) => key.disabled)
                        .map((key) => (
                          <Text key={key.id} size="xs" c="red">
                            {key.masked}: {t(`channels.refusal.${key.reason}`)}
                          </Text>
                        ))}
                    </Table.Td>
                    <Table.Td>
                      {channel.consecutiveFailures}
                      {channel.status === "open" &&
                        ` · ${t("channels.reopensIn", { seconds: Math.ceil(channel.reopensInMs / 1000) })}`}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
    </QueryState>
  );
}
