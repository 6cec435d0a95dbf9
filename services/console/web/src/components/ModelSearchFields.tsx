import { Group, Select, TextInput } from "@mantine/core";
import { type ReactNode, useState } from "react";
import { useTranslation } from "react-i18next";

/** What a model list is narrowed to: a search over model ids and vendors, and one group. */
export function useModelSearch() {
  const [search, setSearch] = useState("");
  const [group, setGroup] = useState<string | null>(null);
  const needle = search.trim().toLowerCase();
  const matches = (model: { id: string; ownedBy: string }) =>
    !needle || model.id.toLowerCase().includes(needle) || model.ownedBy.toLowerCase().includes(needle);
  return { search, setSearch, group, setGroup, matches };
}

/** The search box and group picker of a model list (the admin catalogue, the price list), and any further filters. */
export function ModelSearchFields({
  state,
  groups,
  allGroups,
  children,
}: {
  state: ReturnType<typeof useModelSearch>;
  groups: string[];
  // What the group picker says when no group is picked.
  allGroups: string;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Group align="end">
      <TextInput
        label={t("common.search")}
        placeholder={t("catalogue.searchPlaceholder")}
        value={state.search}
        onChange={(event) => state.setSearch(event.currentTarget.value)}
        maw={280}
      />
      <Select
        label={t("catalogue.group")}
        placeholder={allGroups}
        data={groups}
        value={state.group}
        onChange={state.setGroup}
        clearable
        maw={200}
      />
      {children}
    </Group>
  );
}
