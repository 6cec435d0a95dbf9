import { Alert, Anchor, Badge, Card, Code, Group, Image, SimpleGrid, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link, useParams } from "react-router";
import { api } from "../api/client.js";
import type { LogDetail } from "../api/types.js";
import { OutcomeBadge } from "../components/OutcomeBadge.js";
import { QueryState } from "../components/QueryState.js";
import { answerTurns, type Part, requestTurns, type Turn, toolsOffered } from "../conversation/turns.js";
import { formatYuan } from "../format/money.js";
import { formatDateTime, formatNumber } from "../format/time.js";

const ROLE_COLORS: Record<string, string> = {
  system: "gray",
  developer: "gray",
  user: "blue",
  assistant: "teal",
  tool: "orange",
};

/** Arguments and results are usually JSON: shown indented when they parse. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Only whole images can be drawn; the log keeps data URLs as a header and a size. */
const drawable = (url: string) => /^https?:\/\//.test(url) || (url.startsWith("data:image/") && !url.includes("[…"));

function PartView({ part }: { part: Part }) {
  const { t } = useTranslation();
  switch (part.kind) {
    case "text":
      return <Text style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>{part.text}</Text>;
    case "image":
      return drawable(part.url) ? (
        <Image src={part.url} alt="" maw={320} radius="sm" />
      ) : (
        <Text size="sm" c="dimmed">
          {t("logs.imageElided", { url: part.url })}
        </Text>
      );
    case "toolCall":
      return (
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            {t("logs.toolCall", { name: part.name })} <Code>{part.id}</Code>
          </Text>
          <Code block>{pretty(part.arguments)}</Code>
        </Stack>
      );
    case "toolResult":
      return (
        <Stack gap={4}>
          <Text size="sm" fw={600}>
            {t("logs.toolResult", { id: part.callId })}
          </Text>
          <Code block>{pretty(part.text)}</Code>
        </Stack>
      );
    case "data":
      return <Code block>{JSON.stringify(part.value, null, 2)}</Code>;
  }
}

function TurnView({ turn }: { turn: Turn }) {
  const { t } = useTranslation();
  return (
    <Card withBorder data-testid={`turn-${turn.origin}`}>
      <Group gap="xs" mb="xs">
        <Badge color={ROLE_COLORS[turn.role] ?? "violet"} variant="light">
          {t(`logs.role.${turn.role}`, { defaultValue: turn.role })}
        </Badge>
        {turn.name && <Text size="sm">{turn.name}</Text>}
        {turn.origin === "answer" && <Badge variant="outline">{t("logs.answer")}</Badge>}
        {turn.finishReason && (
          <Text size="xs" c="dimmed">
            {t("logs.finishReason", { reason: turn.finishReason })}
          </Text>
        )}
      </Group>
      <Stack gap="xs">
        {turn.parts.map((part, index) => (
          // Parts have no identity of their own; their order within the turn is stable.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above
          <PartView key={index} part={part} />
        ))}
      </Stack>
    </Card>
  );
}

function Metadata({ detail }: { detail: LogDetail }) {
  const { t, i18n } = useTranslation();
  const { usage } = detail;
  const rows: [string, ReactNode][] = [
    [t("usage.requestId"), <Code key="id">{usage.requestId}</Code>],
    [t("common.time"), formatDateTime(usage.createdAt)],
    [t("common.model"), `${usage.model} (${usage.vendor})`],
    [t("usage.endpoint"), usage.endpoint],
    [t("common.status"), <OutcomeBadge key="outcome" outcome={usage.outcome} />],
    [t("common.promptTokens"), formatNumber(usage.promptTokens, i18n.language)],
    [t("common.completionTokens"), formatNumber(usage.completionTokens, i18n.language)],
    [t("common.cost"), formatYuan(usage.costMicros, i18n.language)],
    [t("usage.latency"), `${usage.latencyMs} ms`],
    [t("usage.stream"), usage.stream ? t("common.yes") : t("common.no")],
    [t("logs.capture"), t(`settings.captureLevel.${detail.capture}`)],
  ];
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        {t("logs.metadata")}
      </Title>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="xs">
        {rows.map(([label, value]) => (
          <div key={label}>
            <Text size="xs" c="dimmed">
              {label}
            </Text>
            <Text size="sm" component="div">
              {value}
            </Text>
          </div>
        ))}
      </SimpleGrid>
    </Card>
  );
}

function Conversation({ detail }: { detail: LogDetail }) {
  const { t } = useTranslation();
  const turns = [...requestTurns(detail.request), ...answerTurns(detail.answer)];
  const tools = toolsOffered(detail.request);
  if (detail.capture !== "full") {
    return <Alert>{t("logs.captureMetadata", { capture: t(`settings.captureLevel.${detail.capture}`) })}</Alert>;
  }
  return (
    <Stack>
      <Title order={4}>{t("logs.conversation")}</Title>
      {tools.length > 0 && (
        <Group gap="xs">
          <Text size="sm">{t("logs.toolsOffered")}</Text>
          {tools.map((tool) => (
            <Badge key={tool} variant="dot" tt="none">
              {tool}
            </Badge>
          ))}
        </Group>
      )}
      {detail.truncated && <Alert color="yellow">{t("logs.truncated")}</Alert>}
      {turns.length === 0 && <Text c="dimmed">{t("logs.noBody")}</Text>}
      {turns.map((turn, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: turns are a fixed, ordered transcript
        <TurnView key={index} turn={turn} />
      ))}
    </Stack>
  );
}

export default function LogViewerPage() {
  const { t } = useTranslation();
  const { requestId = "" } = useParams();
  const log = useQuery({
    queryKey: ["log", requestId],
    queryFn: () => api.get<LogDetail>(`/api/logs/${encodeURIComponent(requestId)}`),
  });
  return (
    <Stack>
      <Anchor component={Link} to="/logs" size="sm">
        ← {t("logs.back")}
      </Anchor>
      <Title order={2}>{t("logs.title")}</Title>
      <QueryState query={log}>
        {(detail) => (
          <>
            <Metadata detail={detail} />
            {detail.error && (
              <Alert color="red" title={t("logs.error")}>
                {detail.error}
              </Alert>
            )}
            <Conversation detail={detail} />
          </>
        )}
      </QueryState>
    </Stack>
  );
}
