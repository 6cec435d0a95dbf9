import "@mantine/core/styles.css";
import "@mantine/dates/styles.css";
import "@mantine/charts/styles.css";
import "@mantine/notifications/styles.css";
import { Badge, createTheme, MantineProvider } from "@mantine/core";
import { ModalsProvider } from "@mantine/modals";
import { Notifications } from "@mantine/notifications";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router";
import { App } from "./App.js";
import { whenUnauthorized } from "./api/client.js";
import { SESSION_KEY } from "./api/session.js";
import { initI18n } from "./i18n/index.js";
import { LocalizedDates } from "./layout/LocalizedDates.js";

initI18n();

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: (count, error) => count < 2 && !("status" in error), staleTime: 10_000 } },
});
// A 401 anywhere means the session ended: drop it, and the router shows the sign-in page.
whenUnauthorized(() => queryClient.setQueryData(SESSION_KEY, null));

const theme = createTheme({
  primaryColor: "indigo",
  defaultRadius: "md",
  respectReducedMotion: true,
  components: {
    // A status is a word or two: shown whole, so a squeezed table column widens to it instead
    // of cutting it to "SUC…" or "已…" (Mantine's badge ellipsizes by default).
    Badge: Badge.extend({ styles: { root: { overflow: "visible", flexShrink: 0 }, label: { overflow: "visible" } } }),
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <LocalizedDates>
        <QueryClientProvider client={queryClient}>
          <ModalsProvider>
            {/* At the bottom: at the top a toast covers the header's name, balance and language menu. */}
            <Notifications position="bottom-right" />
            <BrowserRouter>
              <App />
            </BrowserRouter>
          </ModalsProvider>
        </QueryClientProvider>
      </LocalizedDates>
    </MantineProvider>
  </StrictMode>,
);
