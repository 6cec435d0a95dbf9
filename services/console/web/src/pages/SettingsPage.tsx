import { Button, Card, Code, CopyButton, Group, SegmentedControl, Stack, Table, Text, Title } from "@mantine/core";
import { modals } from "@mantine/modals";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useSearchParams } from "react-router";
import { api } from "../api/client.js";
import { useForgetSession, useSession } from "../api/session.js";
import type { LogCapture, Settings } from "../api/types.js";
import { QueryState } from "../components/QueryState.js";
import { TableHeader } from "../components/TableHeader.js";
import { formatDateTime } from "../format/time.js";

const SETTINGS_KEY = ["settings"];
const CAPTURES: LogCapture[] = ["full", "metadata", "off"];

function Identities({ settings }: { settings: Settings }) {
  const { t } = useTranslation();
  const providerName = (id: string) => settings.providers.find((provider) => provider.id === id)?.name ?? id;
  const linked = new Set(settings.identities.map((identity) => identity.provider));
  const unlinked = settings.providers.filter((provider) => !linked.has(provider.id));
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        {t("settings.identities")}
      </Title>
      <Table.ScrollContainer minWidth={480}>
        <Table>
          <TableHeader labels={[t("settings.provider"), t("settings.account"), t("settings.linkedAt")]} />
          <Table.Tbody>
            {settings.identities.map((identity) => (
              <Table.Tr key={`${identity.provider}/${identity.subject}`}>
                <Table.Td>{providerName(identity.provider)}</Table.Td>
                <Table.Td>{identity.displayName || identity.email || identity.subject}</Table.Td>
                <Table.Td>{formatDateTime(identity.createdAt)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {unlinked.length > 0 && (
        <Group mt="sm">
          {unlinked.map((provider) => (
            <Button key={provider.id} component="a" href={`/api/auth/${provider.id}?link=1`} variant="light">
              {t("settings.link", { name: provider.name })}
            </Button>
          ))}
        </Group>
      )}
    </Card>
  );
}

/**
 * Who is signed in, as the operator CLI names them: the account id and each sign-in's
 * `provider:subject`, with the command that makes it the console's administrator.
 */
function WhoYouAre({ settings }: { settings: Settings }) {
  const { t } = useTranslation();
  const session = useSession();
  const first = settings.identities[0];
  const grant = first ? `pnpm -s gw admin grant ${first.provider}:${first.subject}` : "";
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        {t("settings.whoYouAre")}
      </Title>
      <Stack gap="xs">
        <Text size="sm">
          {t("settings.accountId")}: <Code data-testid="account-id">{session.data?.account.id}</Code>
        </Text>
        {settings.identities.map((identity) => (
          <Text size="sm" key={`${identity.provider}/${identity.subject}`}>
            {t("settings.signIn")}: <Code>{`${identity.provider}:${identity.subject}`}</Code>
          </Text>
        ))}
        {first && (
          <>
            <Text size="sm" c="dimmed">
              {t("settings.grantHelp")}
            </Text>
            <Group wrap="nowrap" align="flex-start">
              <Code
                block
                data-testid="grant-command"
                style={{ overflowWrap: "anywhere", whiteSpace: "pre-wrap", flex: 1 }}
              >
                {grant}
              </Code>
              <CopyButton value={grant}>
                {({ copied, copy }) => (
                  <Button variant="light" color={copied ? "teal" : undefined} onClick={copy}>
                    {copied ? t("common.copied") : t("common.copy")}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </>
        )}
      </Stack>
    </Card>
  );
}

function CaptureLevel({ settings }: { settings: Settings }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: (logCapture: LogCapture) => api.put<Settings>("/api/settings", { logCapture }),
    onSuccess: (saved) => {
      client.setQueryData(SETTINGS_KEY, saved);
      notifications.show({ color: "green", message: t("settings.saved") });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <Card withBorder>
      <Title order={4}>{t("settings.capture")}</Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t("settings.captureHelp")}
      </Text>
      <SegmentedControl
        aria-label={t("settings.capture")}
        value={settings.logCapture}
        disabled={save.isPending}
        onChange={(value) => save.mutate(value as LogCapture)}
        data={CAPTURES.map((capture) => ({ value: capture, label: t(`settings.captureLevel.${capture}`) }))}
      />
    </Card>
  );
}

function SignOut() {
  const { t } = useTranslation();
  const forget = useForgetSession();
  const navigate = useNavigate();
  const signOut = useMutation({
    mutationFn: (path: string) => api.post<void>(path),
    onSuccess: () => {
      forget();
      navigate("/signin", { replace: true });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  const everywhere = () =>
    modals.openConfirmModal({
      title: t("settings.signOutEverywhere"),
      children: <Text size="sm">{t("settings.signOutEverywhereBody")}</Text>,
      labels: { confirm: t("settings.signOutEverywhere"), cancel: t("common.cancel") },
      confirmProps: { color: "red" },
      closeButtonProps: { "aria-label": t("common.close") },
      onConfirm: () => signOut.mutate("/api/auth/sign-out-everywhere"),
    });
  return (
    <Card withBorder>
      <Title order={4} mb="sm">
        {t("settings.session")}
      </Title>
      <Group>
        <Button variant="default" onClick={() => signOut.mutate("/api/auth/sign-out")} loading={signOut.isPending}>
          {t("settings.signOut")}
        </Button>
        <Button color="red" variant="light" onClick={everywhere}>
          {t("settings.signOutEverywhere")}
        </Button>
      </Group>
    </Card>
  );
}

export default function SettingsPage() {
  const { t } = useTranslation();
  const settings = useQuery({ queryKey: SETTINGS_KEY, queryFn: () => api.get<Settings>("/api/settings") });
  const [params, setParams] = useSearchParams();
  const linked = params.get("linked");
  const linkError = params.get("linkError");
  // The console comes back here from linking a provider, saying how it went.
  useEffect(() => {
    if (linked) notifications.show({ color: "green", message: t("settings.linked", { provider: linked }) });
    if (linkError) notifications.show({ color: "red", message: t("settings.linkFailed", { provider: linkError }) });
    if (linked || linkError) setParams({}, { replace: true });
  }, [linked, linkError, setParams, t]);
  return (
    <Stack>
      <Title order={2}>{t("settings.title")}</Title>
      <QueryState query={settings}>
        {(data) => (
          <>
            <WhoYouAre settings={data} />
            <Identities settings={data} />
            <CaptureLevel settings={data} />
          </>
        )}
      </QueryState>
      <SignOut />
    </Stack>
  );
}
