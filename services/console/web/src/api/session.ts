import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, api, setCsrfToken } from "./client.js";
import type { Session } from "./types.js";

export const SESSION_KEY = ["session"] as const;

/** The signed-in session, or null when there is none (401). */
async function fetchSession(): Promise<Session | null> {
  try {
    const session = await api.probe<Session>("/api/session");
    setCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export function useSession() {
  return useQuery({ queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 30_000 });
}

/** Forgets everything cached for the account, leaving the session as signed out. */
export function useForgetSession() {
  const client = useQueryClient();
  return () => {
    client.clear();
    client.setQueryData(SESSION_KEY, null);
  };
}
