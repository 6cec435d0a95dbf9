import type { Router } from "express";
import { z } from "zod";
import type { AdminGuards } from "../http/admin-guards.js";
import { parseInput } from "../http/console-error.js";
import type { Operations } from "../ledger-client.js";

const overviewQuery = z.object({ from: z.iso.date().optional(), to: z.iso.date().optional() });

/** The service at a glance, for admins: ledger's daily top-ups and spend, top accounts and models, channel error rates. */
export function operationsRoutes(router: Router, operations: Operations, guards: AdminGuards): void {
  router.get("/admin/overview", guards.staff, async (request, response) => {
    const query = parseInput(overviewQuery, request.query);
    const overview = await operations.getOverview({ fromDay: query.from ?? "", toDay: query.to ?? "", top: 10 });
    response.json({
      from: overview.fromDay,
      to: overview.toDay,
      days: overview.days,
      topAccounts: overview.topAccounts,
      topModels: overview.topModels,
      channels: overview.channels.map((channel) => ({
        ...channel,
        errorRate: channel.requests > 0 ? channel.errors / channel.requests : 0,
      })),
    });
  });
}
