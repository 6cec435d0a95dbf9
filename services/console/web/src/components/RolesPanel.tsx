import { Alert, Button, Group, Select, Stack, Table, Text, TextInput } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api/client.js";
import type { RoleGrant } from "../api/operator-types.js";
import { useSession } from "../api/session.js";
import type { OperatorRole } from "../api/types.js";
import { formatDateTime } from "../format/time.js";
import { QueryState } from "./QueryState.js";
import { TableHeader } from "./TableHeader.js";

/** Who operates the console: every operator sees the grants, an admin grants and revokes them. */
export function RolesPanel() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const isAdmin = useSession().data?.role === "admin";
  const [grantee, setGrantee] = useState("");
  const [role, setRole] = useState<OperatorRole>("support");
  const grants = useQuery({
    queryKey: ["operator-roles"],
    queryFn: () => api.get<{ grants: RoleGrant[] }>("/api/admin/roles"),
  });
  const changed = (message: string) => {
    notifications.show({ color: "green", message });
    void client.invalidateQueries({ queryKey: ["operator-roles"] });
  };
  const failed = (error: Error) => notifications.show({ color: "red", message: error.message });
  const grant = useMutation({
    mutationFn: () => api.post<RoleGrant>("/api/admin/roles", { grantee: grantee.trim(), role }),
    onSuccess: (granted) => {
      setGrantee("");
      changed(t("operators.granted", { grantee: granted.grantee, role: t(`operators.roleNames.${granted.role}`) }));
    },
    onError: failed,
  });
  const revoke = useMutation({
    mutationFn: (revoked: string) => api.post("/api/admin/roles/revoke", { grantee: revoked }),
    onSuccess: (_answer, revoked) => changed(t("operators.revoked", { grantee: revoked })),
    onError: failed,
  });
  return (
    <Stack>
      <Text size="sm" c="dimmed">
        {t("operators.bootstrap")}
      </Text>
      {isAdmin ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (grantee.trim()) grant.mutate();
          }}
        >
          <Group align="flex-end">
            <TextInput
              label={t("operators.grantee")}
              description={t("operators.granteeHelp")}
              value={grantee}
              onChange={(event) => setGrantee(event.currentTarget.value)}
              miw={320}
            />
            <Select
              label={t("operators.role")}
              data={(["admin", "support"] as const).map((value) => ({
                value,
                label: t(`operators.roleNames.${value}`),
              }))}
              value={role}
              onChange={(value) => value && setRole(value as OperatorRole)}
              allowDeselect={false}
            />
            <Button type="submit" loading={grant.isPending}>
              {t("operators.grant")}
            </Button>
          </Group>
        </form>
      ) : (
        <Alert color="gray">{t("operators.adminOnly")}</Alert>
      )}
      <QueryState query={grants}>
        {({ grants: list }) => (
          <Table.ScrollContainer minWidth={640}>
            <Table striped>
              <TableHeader
                labels={[
                  t("operators.grantee"),
                  t("operators.role"),
                  t("operators.grantedBy"),
                  t("operators.grantedAt"),
                  "",
                ]}
              />
              <Table.Tbody>
                {list.map((row) => (
                  <Table.Tr key={row.grantee}>
                    <Table.Td ff="monospace">{row.grantee}</Table.Td>
                    <Table.Td>{t(`operators.roleNames.${row.role}`)}</Table.Td>
                    <Table.Td ff="monospace">{row.grantedBy}</Table.Td>
                    <Table.Td>{formatDateTime(row.grantedAt)}</Table.Td>
                    <Table.Td>
                      {isAdmin && (
                        <Button size="xs" variant="light" color="red" onClick={() => revoke.mutate(row.grantee)}>
                          {t("operators.revoke")}
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </QueryState>
    </Stack>
  );
}
