// Type-only: the service queries Postgres through `pg` (see tasks/task-sql.ts) and never loads
// the generated Prisma client at run time; the client's model type still names a task's row.
export type { VideoTask } from "./generated/prisma/client.js";
