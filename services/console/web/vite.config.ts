import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The console server (services/console) serves dist/ at / and the API at /api; in `vite dev` the
// API is proxied to a console started by `pnpm start`.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // Recharts alone is ~500 kB minified; it sits in its own chunk that only chart pages load.
    chunkSizeWarningLimit: 600,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: "charts", test: /node_modules[\\/](recharts|@mantine[\\/]charts|d3-|victory-vendor)/ },
            { name: "mantine", test: /node_modules[\\/]@mantine/ },
            { name: "react", test: /node_modules[\\/](react|react-dom|scheduler|react-router)[\\/]/ },
          ],
        },
      },
    },
  },
  server: { proxy: { "/api": process.env.CONSOLE_URL ?? "http://127.0.0.1:8081" } },
});
