import { Alert, Anchor, Button, Center, Group, Paper, Stack, Text, Title } from "@mantine/core";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link, useSearchParams } from "react-router";
import { api } from "../api/client.js";
import type { Provider } from "../api/types.js";
import { QueryState } from "../components/QueryState.js";
import { LanguageSwitch } from "../layout/LanguageSwitch.js";

export function SignInPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const providers = useQuery({
    queryKey: ["providers"],
    queryFn: () => api.probe<{ providers: Provider[] }>("/api/auth/providers"),
  });
  const error = params.get("error");
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" w={420} maw="100%">
        <Stack>
          <Group justify="space-between" align="flex-start" wrap="nowrap">
            <Title order={2}>{t("signin.title")}</Title>
            <LanguageSwitch />
          </Group>
          <Text c="dimmed" size="sm">
            {t("signin.subtitle")}
          </Text>
          {error && (
            <Alert color="red" role="alert">
              {t("signin.failed", { code: error })}
            </Alert>
          )}
          <QueryState query={providers}>
            {({ providers: list }) =>
              list.length === 0 ? (
                <Text>{t("signin.noProviders")}</Text>
              ) : (
                list.map((provider) => (
                  <Button key={provider.id} component="a" href={`/api/auth/${provider.id}`} size="md" fullWidth>
                    {t("signin.with", { name: provider.name })}
                  </Button>
                ))
              )
            }
          </QueryState>
          <Anchor component={Link} to="/pricing" size="sm">
            {t("nav.pricing")}
          </Anchor>
        </Stack>
      </Paper>
    </Center>
  );
}
