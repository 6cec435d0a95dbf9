import { Center, Loader } from "@mantine/core";
import { lazy, type ReactNode, Suspense } from "react";
import { Navigate, Outlet, Route, Routes } from "react-router";
import { useSession } from "./api/session.js";
import { Shell } from "./layout/Shell.js";
import { SignInPage } from "./pages/SignInPage.js";

const OverviewPage = lazy(() => import("./pages/OverviewPage.js"));
const UsagePage = lazy(() => import("./pages/UsagePage.js"));
const StatisticsPage = lazy(() => import("./pages/StatisticsPage.js"));
const LogsPage = lazy(() => import("./pages/LogsPage.js"));
const LogViewerPage = lazy(() => import("./pages/LogViewerPage.js"));
const KeysPage = lazy(() => import("./pages/KeysPage.js"));
const TopUpPage = lazy(() => import("./pages/TopUpPage.js"));
const SettingsPage = lazy(() => import("./pages/SettingsPage.js"));
const AdminPage = lazy(() => import("./pages/AdminPage.js"));
const PricingPage = lazy(() => import("./pages/PricingPage.js"));
const OperationsPage = lazy(() => import("./pages/OperationsPage.js"));
const AdminAccountPage = lazy(() => import("./pages/AdminAccountPage.js"));

const loading = (
  <Center h="60vh">
    <Loader />
  </Center>
);

function SignedIn() {
  const session = useSession();
  if (session.isPending) return loading;
  if (!session.data) return <Navigate to="/signin" replace />;
  return (
    <Shell session={session.data}>
      <Suspense fallback={loading}>
        <Outlet />
      </Suspense>
    </Shell>
  );
}

function SignedOut() {
  const session = useSession();
  if (session.isPending) return loading;
  return session.data ? <Navigate to="/" replace /> : <SignInPage />;
}

/** The operators' pages (admin or support); customers are sent home. */
function OperatorsOnly({ page }: { page: ReactNode }) {
  const session = useSession();
  return session.data?.isAdmin ? page : <Navigate to="/" replace />;
}

export function App() {
  return (
    <Routes>
      <Route path="/signin" element={<SignedOut />} />
      {/* Prices are public: the page needs no session. */}
      <Route
        path="/pricing"
        element={
          <Suspense fallback={loading}>
            <PricingPage />
          </Suspense>
        }
      />
      <Route element={<SignedIn />}>
        <Route index element={<OverviewPage />} />
        <Route path="usage" element={<UsagePage />} />
        <Route path="statistics" element={<StatisticsPage />} />
        <Route path="logs" element={<LogsPage />} />
        <Route path="logs/:requestId" element={<LogViewerPage />} />
        <Route path="keys" element={<KeysPage />} />
        <Route path="topup" element={<TopUpPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="admin" element={<OperatorsOnly page={<AdminPage />} />} />
        <Route path="admin/accounts/:accountId" element={<OperatorsOnly page={<AdminAccountPage />} />} />
        <Route path="operations" element={<OperatorsOnly page={<OperationsPage />} />} />
        <Route path="*" element={<Navigate to="/" replace />} />
      </Route>
    </Routes>
  );
}
