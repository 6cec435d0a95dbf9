import type { AdminRequest } from "./admin-client.js";

export interface FirstAdminCommand {
  kind: "admin-grant-first";
  yes: boolean;
  json: boolean;
}

interface Candidate {
  grantee: string;
  account_id: string;
  display_name: string | null;
  email: string | null;
  last_sign_in_at: string;
}

/** Asks the operator a yes/no question; false where there is no one to ask (no terminal). */
export type Confirm = (question: string) => Promise<boolean>;

/** The confirmation was declined or could not be asked: nothing was granted. */
export class NotConfirmed extends Error {
  override name = "NotConfirmed";
}

export function describeCandidate(candidate: Candidate): string {
  const person = [candidate.display_name, candidate.email && `<${candidate.email}>`].filter(Boolean).join(" ");
  return `${candidate.grantee}${person ? ` (${person})` : ""}, account ${candidate.account_id}, last signed in ${candidate.last_sign_in_at}`;
}

/**
 * `admin grant --first`: shows the sign-in used last and, once the operator confirms (or passed
 * --yes), makes exactly that one the first admin. Ledger refuses if an admin exists by then.
 */
export async function executeFirstAdmin(
  command: FirstAdminCommand,
  request: AdminRequest,
  confirm: Confirm,
  say: (line: string) => void,
) {
  const candidate = (await request("GET", "/roles/first")) as Candidate;
  const who = describeCandidate(candidate);
  say(`The first console administrator would be ${who}.`);
  if (!command.yes && !(await confirm("Grant it the admin role? [y/N] "))) {
    throw new NotConfirmed(
      "nothing granted: confirm with --yes (or answer y), or name the sign-in: pnpm gw admin grant IDENTITY",
    );
  }
  const answer = (await request("POST", "/roles/first", { grantee: candidate.grantee })) as {
    grantee: string;
    role: string;
    granted_at: string;
  };
  return { answer, render: () => `${answer.grantee} is ${answer.role} (granted ${answer.granted_at})` };
}
