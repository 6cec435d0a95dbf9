import { Alert, Center, Loader } from "@mantine/core";
import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";

/** The query's data once it has arrived; a loader before, an alert if it failed. */
export function QueryState<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  const { t } = useTranslation();
  if (query.isPending) {
    return (
      <Center p="xl">
        <Loader aria-label={t("common.loading")} />
      </Center>
    );
  }
  if (query.isError) {
    return (
      <Alert color="red" role="alert">
        {t("common.error", { message: query.error.message })}
      </Alert>
    );
  }
  return <>{children(query.data)}</>;
}
