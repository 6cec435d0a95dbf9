import { Button, Group, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { useCursorPages } from "./useCursorPages.js";

export function CursorPager({ pages, nextCursor }: { pages: ReturnType<typeof useCursorPages>; nextCursor: string }) {
  const { t } = useTranslation();
  return (
    <Group justify="flex-end" gap="xs">
      <Button variant="default" size="xs" disabled={!pages.hasPrevious} onClick={pages.previous}>
        {t("common.previous")}
      </Button>
      <Text size="sm" aria-live="polite">
        {pages.page}
      </Text>
      <Button variant="default" size="xs" disabled={!nextCursor} onClick={() => pages.next(nextCursor)}>
        {t("common.next")}
      </Button>
    </Group>
  );
}
