import type { DayTotals, ModelTotals } from "../api/types.js";

/** Chart rows: cost in yuan (charts plot plain numbers), tokens summed, days shortened to MM-DD. */
export function dayChartData(days: DayTotals[]) {
  return days.map((day) => ({
    day: day.day.slice(5),
    requests: day.requests,
    tokens: day.promptTokens + day.completionTokens,
    cost: day.costMicros / 1e6,
  }));
}

export function modelChartData(models: ModelTotals[]) {
  return models.map((model) => ({
    model: model.model,
    requests: model.requests,
    tokens: model.promptTokens + model.completionTokens,
    cost: model.costMicros / 1e6,
  }));
}
