/** A third-party sign-in as the console reports it. */
export interface SignInIdentityInput {
  provider: string;
  subject: string;
  email?: string | undefined;
  displayName?: string | undefined;
}
