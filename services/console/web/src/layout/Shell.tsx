import { AppShell, Burger, Group, NavLink, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { NavLink as RouterLink, useLocation } from "react-router";
import type { Session } from "../api/types.js";
import { formatYuan } from "../format/money.js";
import { LanguageSwitch } from "./LanguageSwitch.js";

const PAGES = [
  { to: "/", label: "nav.overview" },
  { to: "/usage", label: "nav.usage" },
  { to: "/statistics", label: "nav.statistics" },
  { to: "/logs", label: "nav.logs" },
  { to: "/keys", label: "nav.keys" },
  { to: "/topup", label: "nav.topup" },
  { to: "/settings", label: "nav.settings" },
  // Public, outside this shell: its page links back here.
  { to: "/pricing", label: "nav.pricing" },
] as const;

function isCurrent(pathname: string, to: string): boolean {
  return to === "/" ? pathname === "/" : pathname === to || pathname.startsWith(`${to}/`);
}

export function Shell({ session, children }: { session: Session; children: ReactNode }) {
  const { t, i18n } = useTranslation();
  const [opened, { toggle, close }] = useDisclosure();
  const { pathname } = useLocation();
  const adminPages = [
    { to: "/admin", label: "nav.admin" } as const,
    { to: "/operations", label: "nav.operations" } as const,
  ];
  const pages = session.isAdmin ? [...PAGES, ...adminPages] : PAGES;
  return (
    <AppShell
      header={{ height: 56 }}
      navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }}
      padding="md"
    >
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap" gap="sm">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={t("nav.menu")} />
            <Title order={4} visibleFrom="xs">
              {t("app.title")}
            </Title>
          </Group>
          <Group wrap="nowrap" gap="sm">
            <Text size="sm" c="dimmed" visibleFrom="md">
              {session.account.name}
            </Text>
            <Text size="sm" fw={600} data-testid="header-balance">
              {formatYuan(session.account.balanceMicros, i18n.language)}
            </Text>
            <LanguageSwitch />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="sm" component="nav" aria-label={t("nav.menu")}>
        {pages.map((page) => (
          <NavLink
            key={page.to}
            component={RouterLink}
            to={page.to}
            label={t(page.label)}
            active={isCurrent(pathname, page.to)}
            onClick={close}
          />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}
