import {
  Alert,
  Badge,
  Button,
  Card,
  Center,
  Group,
  Loader,
  NumberInput,
  Radio,
  Stack,
  Table,
  Text,
  Title,
} from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { QRCodeSVG } from "qrcode.react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, apiPath } from "../api/client.js";
import { SESSION_KEY } from "../api/session.js";
import type { CreatedTopUp, PaymentProvider, TopUpOrder } from "../api/types.js";
import { RedeemCodeCard } from "../components/RedeemCodeCard.js";
import { fenToMicros, formatYuan, yuanToFen } from "../format/money.js";
import { formatDateTime } from "../format/time.js";

const STATE_COLORS = { created: "blue", paid: "green", closed: "gray", failed: "red" } as const;
const POLL_MS = 2_000;

function OrderState({ order }: { order: TopUpOrder }) {
  const { t } = useTranslation();
  return (
    <Badge color={STATE_COLORS[order.state]} variant="light">
      {t(`topup.state.${order.state}`)}
    </Badge>
  );
}

/**
 * On a phone the QR code cannot be scanned from its own screen: the link opens the page-pay URL
 * or, without one, the code's own URL (weixin:// and Alipay's https links open their apps).
 */
const payLink = (created: CreatedTopUp) => created.payment.payUrl || created.payment.qrCode;

/** The QR code and pay link of an order just created, watched until it is paid, closed or failed. */
function PendingPayment({ created }: { created: CreatedTopUp }) {
  const { t, i18n } = useTranslation();
  const client = useQueryClient();
  const { outTradeNo } = created.order;
  const order = useQuery({
    queryKey: ["topup", outTradeNo],
    queryFn: () => api.get<{ order: TopUpOrder }>(`/api/topups/${encodeURIComponent(outTradeNo)}`),
    refetchInterval: (query) => ((query.state.data?.order.state ?? "created") === "created" ? POLL_MS : false),
  });
  const current = order.data?.order ?? created.order;
  useEffect(() => {
    if (current.state === "created") return;
    void client.invalidateQueries({ queryKey: ["topups"] });
    if (current.state !== "paid") return;
    void client.invalidateQueries({ queryKey: SESSION_KEY });
    void client.invalidateQueries({ queryKey: ["overview"] });
    notifications.show({
      color: "green",
      message: t("topup.paid", { amount: formatYuan(fenToMicros(current.amountFen), i18n.language) }),
    });
  }, [current.state, current.amountFen, client, t, i18n.language]);
  const method = t(`topup.${current.provider}`);
  const card = useRef<HTMLDivElement>(null);
  // Resumed from a row further down the page, the code would otherwise appear out of sight.
  useEffect(() => {
    card.current?.scrollIntoView({ block: "nearest" });
  }, []);
  return (
    <Card withBorder data-testid="pending-payment" ref={card}>
      <Stack align="center">
        <Group>
          <Text fw={600}>{formatYuan(fenToMicros(current.amountFen), i18n.language)}</Text>
          <OrderState order={current} />
        </Group>
        {current.state === "created" && (
          <>
            <Text size="sm">{t("topup.scan", { method })}</Text>
            <QRCodeSVG
              value={created.payment.qrCode}
              size={200}
              marginSize={2}
              aria-label={t("topup.scan", { method })}
            />
            <Button component="a" href={payLink(created)} target="_blank" rel="noopener" variant="light">
              {t("topup.openPayPage")}
            </Button>
            <Group gap="xs">
              <Loader size="xs" />
              <Text size="sm" c="dimmed">
                {t("topup.waiting")}
              </Text>
            </Group>
          </>
        )}
        {current.state === "paid" && (
          <Alert color="green" data-testid="payment-paid">
            {t("topup.paid", { amount: formatYuan(fenToMicros(current.amountFen), i18n.language) })}
          </Alert>
        )}
        {current.state === "closed" && <Alert color="gray">{t("topup.closed")}</Alert>}
        {current.state === "failed" && <Alert color="red">{t("topup.failed")}</Alert>}
        <Text size="xs" c="dimmed" ff="monospace" data-testid="pending-order">
          {t("topup.order")}: {outTradeNo}
        </Text>
      </Stack>
    </Card>
  );
}

function TopUpForm({ onCreated }: { onCreated: (created: CreatedTopUp) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const form = useForm<{ yuan: number | string; provider: PaymentProvider }>({
    initialValues: { yuan: 10, provider: "wechat" },
    validate: {
      yuan: (yuan) => {
        const fen = typeof yuan === "number" ? yuanToFen(yuan) : undefined;
        return fen !== undefined && fen >= 100 ? null : t("topup.amountInvalid");
      },
    },
  });
  const create = useMutation({
    mutationFn: (body: { provider: PaymentProvider; amountFen: number }) => api.post<CreatedTopUp>("/api/topups", body),
    onSuccess: (created) => {
      onCreated(created);
      void client.invalidateQueries({ queryKey: ["topups"] });
    },
    onError: (error) => notifications.show({ color: "red", message: error.message }),
  });
  return (
    <form
      onSubmit={form.onSubmit(({ yuan, provider }) => create.mutate({ provider, amountFen: yuanToFen(Number(yuan))! }))}
    >
      <Stack>
        <NumberInput
          label={t("topup.amount")}
          description={t("topup.amountHint")}
          min={1}
          decimalScale={2}
          prefix="¥"
          {...form.getInputProps("yuan")}
        />
        <Radio.Group label={t("topup.method")} {...form.getInputProps("provider")}>
          <Group mt="xs">
            <Radio value="wechat" label={t("topup.wechat")} />
            <Radio value="alipay" label={t("topup.alipay")} />
          </Group>
        </Radio.Group>
        <Button type="submit" loading={create.isPending}>
          {t("topup.pay")}
        </Button>
      </Stack>
    </form>
  );
}

/** An order still awaiting payment offers its QR code and pay link again, as the providers keep them until it expires. */
function ResumeButton({ order, onResumed }: { order: TopUpOrder; onResumed: (created: CreatedTopUp) => void }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const resume = useMutation({
    mutationFn: () => api.post<CreatedTopUp>(`/api/topups/${encodeURIComponent(order.outTradeNo)}/payment`),
    onSuccess: onResumed,
    onError: (error) => {
      notifications.show({ color: "red", message: error.message });
      void client.invalidateQueries({ queryKey: ["topups"] });
    },
  });
  if (order.state !== "created" || Date.parse(order.expiresAt) <= Date.now()) return null;
  return (
    <Button size="compact-xs" variant="light" onClick={() => resume.mutate()} loading={resume.isPending}>
      {t("topup.resume")}
    </Button>
  );
}

function OrderHistory({ onResumed }: { onResumed: (created: CreatedTopUp) => void }) {
  const { t, i18n } = useTranslation();
  const orders = useInfiniteQuery({
    queryKey: ["topups"],
    queryFn: ({ pageParam }) =>
      api.get<{ orders: TopUpOrder[]; nextCursor: string }>(apiPath("/api/topups", { cursor: pageParam })),
    initialPageParam: "",
    getNextPageParam: (page) => page.nextCursor || undefined,
  });
  if (orders.isPending) {
    return (
      <Center>
        <Loader />
      </Center>
    );
  }
  if (orders.isError) return <Alert color="red">{t("common.error", { message: orders.error.message })}</Alert>;
  const list = orders.data.pages.flatMap((page) => page.orders);
  return (
    <Stack>
      {/* Fits a phone: the method under the amount, the number under the time (wrapping), no finish time there. */}
      <Table striped data-testid="order-history">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("topup.order")}</Table.Th>
            <Table.Th>{t("topup.amount")}</Table.Th>
            <Table.Th>{t("common.status")}</Table.Th>
            <Table.Th visibleFrom="sm">{t("topup.finishedAt")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {list.map((order) => (
            <Table.Tr key={order.outTradeNo}>
              <Table.Td>
                <Text size="sm">{formatDateTime(order.createdAt)}</Text>
                <Text size="xs" c="dimmed" ff="monospace" style={{ wordBreak: "break-all" }}>
                  {order.outTradeNo}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" data-layout-visible>
                  {formatYuan(fenToMicros(order.amountFen), i18n.language)}
                </Text>
                <Text size="xs" c="dimmed">
                  {t(`topup.${order.provider}`)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Group gap="xs" data-layout-visible>
                  <OrderState order={order} />
                  <ResumeButton order={order} onResumed={onResumed} />
                </Group>
              </Table.Td>
              <Table.Td visibleFrom="sm">{formatDateTime(order.finishedAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {list.length === 0 && <Text c="dimmed">{t("common.empty")}</Text>}
      {orders.hasNextPage && (
        <Button variant="default" onClick={() => void orders.fetchNextPage()} loading={orders.isFetchingNextPage}>
          {t("topup.more")}
        </Button>
      )}
    </Stack>
  );
}

export default function TopUpPage() {
  const { t } = useTranslation();
  const [created, setCreated] = useState<CreatedTopUp | null>(null);
  return (
    <Stack>
      <Title order={2}>{t("topup.title")}</Title>
      <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
        <Card withBorder miw={280}>
          <TopUpForm onCreated={setCreated} />
        </Card>
        {created && <PendingPayment key={created.order.outTradeNo} created={created} />}
        <RedeemCodeCard />
      </Group>
      <Title order={3}>{t("topup.history")}</Title>
      <OrderHistory onResumed={setCreated} />
    </Stack>
  );
}
