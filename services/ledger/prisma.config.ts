import { defineConfig } from "prisma/config";

// Prisma 7 reads the schema location and the database URL from here, not from schema.prisma.
// Only `prisma generate` runs in this project (migrations are plain SQL applied by
// src/migrate.ts), and it needs no URL, so an unset DATABASE_URL is fine.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "" },
});
