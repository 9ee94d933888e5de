import { BoundedMap, type Clock, type MeteredTeam, meteredTeam } from "@rubricon/core";
import type { Db } from "@rubricon/db";
import { actorOf, type Principal } from "../request/principal";

interface Entry {
  value: MeteredTeam | null;
  expiresAt: number;
}

const TTL_MS = 10_000;
const MAX_ENTRIES = 50_000;

/**
 * Which team a principal's requests count against, and that team's limits, cached for a few seconds: metering
 * would otherwise add a database round trip to every request. A plan change through this instance applies at
 * once (`forgetTeam`); one made elsewhere (another instance, the admin CLI) within `TTL_MS`.
 */
export class MeterCache {
  private readonly entries = new BoundedMap<string, Entry>(MAX_ENTRIES);

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async teamOf(principal: Principal): Promise<MeteredTeam | null> {
    const actor = actorOf(principal);
    const key = actor.boundTeamId ? `team:${actor.boundTeamId}` : `user:${actor.userId}`;
    const now = this.clock.now().getTime();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = await meteredTeam(this.db, actor);
    this.entries.set(key, { value, expiresAt: now + TTL_MS });
    return value;
  }

  /** Drops what is cached about a team, e.g. after its plan changed. */
  forgetTeam(teamId: string): void {
    for (const [key, entry] of this.entries) {
      if (key === `team:${teamId}` || entry.value?.teamId === teamId) this.entries.delete(key);
    }
  }
}
