import type { SqlPool } from "@gateway/platform";
import type { VideoTask } from "../database.js";

/** What a worker writes to the task it holds, by the VideoTask field names; undefined fields are left alone. */
export type TaskChanges = Partial<Omit<VideoTask, "id">>;

// Field names are the columns' in camelCase (the generated client's mapping), so the column follows from the name.
const columnOf = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

// One named statement per set of columns, as a worker writes only a handful of shapes. Numbered rather
// than named after the columns: Postgres cuts names at 63 bytes, and two cut names could then collide.
const statements = new Map<string, { name: string; text: string }>();

function statementFor(fields: string[]): { name: string; text: string } {
  const key = fields.join(",");
  let statement = statements.get(key);
  if (!statement) {
    const sets = fields.map((field, index) => `${columnOf(field)} = $${index + 3}`).join(", ");
    statement = {
      name: `video-update-held-task-${statements.size}`,
      text: `UPDATE video.tasks SET ${sets} WHERE id = $1 AND worker_id = $2 AND status = 'processing'`,
    };
    statements.set(key, statement);
  }
  return statement;
}

/** Writes `changes` only while `workerId` holds the task and it is processing; answers how many rows changed (0 or 1). */
export async function updateHeldTask(
  pool: SqlPool,
  id: string,
  workerId: string,
  changes: TaskChanges,
): Promise<number> {
  const fields = Object.entries(changes).filter(([, value]) => value !== undefined);
  const { rowCount } = await pool.query({
    ...statementFor(fields.map(([field]) => field)),
    values: [id, workerId, ...fields.map(([, value]) => value)],
  });
  return rowCount ?? 0;
}
