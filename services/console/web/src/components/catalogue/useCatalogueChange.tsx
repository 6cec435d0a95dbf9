import { Alert, List } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import type { CatalogueChangeResult, StoredCatalogue } from "../../api/catalogue-types.js";
import { ApiError, api } from "../../api/client.js";
import { useSession } from "../../api/session.js";

/** One change as router's catalogue takes it (packages/catalogue/src/store/catalogue-edits.ts). */
export type CatalogueEdit = { action: string } & Record<string, unknown>;

// Every view a change can alter: the stored entries, router's description, channel health, the history.
const CATALOGUE_VIEWS = ["catalogue-stored", "admin-catalogue", "admin-channels", "catalogue-history"];

export function useStoredCatalogue() {
  return useQuery({
    queryKey: ["catalogue-stored"],
    queryFn: () => api.get<StoredCatalogue>("/api/admin/catalogue/stored"),
  });
}

export const useIsAdmin = () => useSession().data?.role === "admin";

/** Sends one change; `onDone` runs once router committed it (or found nothing to change). */
export function useCatalogueChange(onDone?: () => void) {
  const { t } = useTranslation();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (edit: CatalogueEdit) => api.post<CatalogueChangeResult>("/api/admin/catalogue/changes", edit),
    onSuccess: ({ revision, changed }) => {
      notifications.show({
        color: "green",
        message: changed.length === 0 ? t("catalogueEdit.unchanged") : t("catalogueEdit.changed", { revision }),
      });
      for (const key of CATALOGUE_VIEWS) void client.invalidateQueries({ queryKey: [key] });
      onDone?.();
    },
  });
}

/** Why router refused the change: each problem it named, or the one message. */
export function ChangeProblems({ error }: { error: Error | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  const problems = error instanceof ApiError && error.problems.length > 0 ? error.problems : [error.message];
  return (
    <Alert color="red" title={t("catalogueEdit.refused")} role="alert">
      <List size="sm">
        {problems.map((problem) => (
          <List.Item key={problem}>{problem}</List.Item>
        ))}
      </List>
    </Alert>
  );
}

/** "a, b" or one per line as a list of names. */
export const listOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);
