import { Modal, Select, Stack, Switch } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { FormActions } from "../FormActions.js";
import { ChangeProblems, useCatalogueChange } from "./useCatalogueChange.js";

/** Retires a model for a successor: served in its place, or refused with the successor named. */
export function RetireDialog({
  model,
  models,
  onClose,
}: {
  model: string | null;
  models: string[];
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [successor, setSuccessor] = useState<string | null>(null);
  const [serve, setServe] = useState(true);
  const change = useCatalogueChange(onClose);
  return (
    <Modal
      closeButtonProps={{ "aria-label": t("common.close") }}
      opened={model !== null}
      onClose={onClose}
      title={t("catalogueEdit.retireTitle", { name: model ?? "" })}
    >
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (model && successor) change.mutate({ action: "model.retire", name: model, successor, serve });
        }}
      >
        <Stack>
          <Select
            label={t("catalogueEdit.successor")}
            data={models.filter((id) => id !== model)}
            value={successor}
            onChange={setSuccessor}
            searchable
            withAsterisk
          />
          <Switch
            label={t("catalogueEdit.serveSuccessor")}
            description={t("catalogueEdit.serveSuccessorHelp")}
            checked={serve}
            onChange={(event) => setServe(event.currentTarget.checked)}
          />
          <ChangeProblems error={change.error} />
          <FormActions submit={t("catalogueEdit.retire")} pending={change.isPending} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
