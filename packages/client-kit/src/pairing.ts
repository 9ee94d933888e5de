import { type Connection, connect } from "./client";

export interface Pairing {
  code: string;
  pollingSecret: string;
  verificationUrl: string;
  /** Seconds between polls, as the server asks. */
  interval: number;
  expiresAt: string;
}

export interface PairedToken {
  token: string;
  expiresAt: string | null;
}

/** Starts a pairing: the code to show and the dashboard page where the signed-in user approves it. */
export async function startPairing(conn: Connection): Promise<Pairing> {
  const res = await connect({ ...conn, token: undefined }).auth.figma.pair.create({});
  return {
    code: res.code,
    pollingSecret: res.pollingSecret,
    verificationUrl: res.verificationUrl,
    interval: res.interval,
    expiresAt: res.expiresAt,
  };
}

/** One poll: the token once the user approved, null while pending. */
export async function pollPairing(conn: Connection, pairing: Pairing): Promise<PairedToken | null> {
  const res = await connect({ ...conn, token: undefined }).auth.figma.pair.poll(pairing.code, {
    pollingSecret: pairing.pollingSecret,
  });
  if (res.status !== "approved" || !res.token) return null;
  return { token: res.token, expiresAt: res.expiresAt ?? null };
}

export interface WaitOptions {
  /** Waits between polls; tests pass a shorter one. */
  sleep?: (ms: number) => Promise<void>;
  /** Stops waiting when it answers true (the user cancelled or closed the window). */
  cancelled?: () => boolean;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls at the server's interval until the user approves, the code expires (the API answers
 * `pairing_expired`), or the caller cancels (null).
 */
export async function waitForApproval(
  conn: Connection,
  pairing: Pairing,
  opts: WaitOptions = {},
): Promise<PairedToken | null> {
  const sleep = opts.sleep ?? defaultSleep;
  for (;;) {
    if (opts.cancelled?.()) return null;
    const approved = await pollPairing(conn, pairing);
    if (approved) return approved;
    await sleep(pairing.interval * 1000);
  }
}

export interface SignedIn {
  userId: string;
  email: string;
  teamId: string;
  teamName: string;
  plan: string;
}

/** Who the token acts as and the team new evaluations go to. */
export async function whoAmI(conn: Connection): Promise<SignedIn> {
  const api = connect(conn);
  const me = await api.auth.whoami();
  const teamId = me.teamId ?? me.teamIds[0];
  if (!teamId) throw new Error("This account has no team.");
  const team = await api.teams.retrieve(teamId);
  return { userId: me.userId, email: me.email, teamId, teamName: team.name, plan: team.plan };
}
